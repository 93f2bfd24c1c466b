// The dispatcher: deliveries off the caller's thread, in order, every failure reported, and a
// bounded wait at the end however slow a receiver is.
#include "notify/webhook_receiver.h"
#include "support/temp_dir.h"

#include "ralph/notify/dispatcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ralph::notify {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::WebhookReceiver;

// What the dispatcher reported, from any thread.
class Warnings {
public:
  Dispatcher::Warn sink() {
    return [this](const std::string& line) {
      std::lock_guard lock(m_mutex);
      m_lines.push_back(line);
    };
  }
  std::vector<std::string> lines() {
    std::lock_guard lock(m_mutex);
    return m_lines;
  }

private:
  std::mutex m_mutex;
  std::vector<std::string> m_lines;
};

Notification numbered(int n) {
  return make_notification(NotifyEvent::completed, "{\"n\":" + std::to_string(n) + "}", 1,
                           "session " + std::to_string(n));
}

TEST(Dispatcher, DeliversInOrderOffTheCallersThread) {
  WebhookReceiver receiver;
  Warnings warnings;
  Dispatcher dispatcher(warnings.sink());
  const NotifyTarget target{.url = receiver.url("/h")};
  for (int n = 1; n <= 3; ++n) {
    dispatcher.post(target, "", numbered(n));
  }
  EXPECT_EQ(dispatcher.drain(), 0);
  const auto got = receiver.received();
  ASSERT_EQ(got.size(), 3U);
  EXPECT_EQ(got[0].body, "{\"n\":1}");
  EXPECT_EQ(got[2].body, "{\"n\":3}");
  EXPECT_TRUE(warnings.lines().empty());
}

TEST(Dispatcher, AFailedDeliveryIsReportedNamingTheTargetWithoutItsSecrets) {
  WebhookReceiver receiver;
  receiver.answer({.status = 404});
  Warnings warnings;
  Dispatcher dispatcher(warnings.sink());
  dispatcher.post({.url = receiver.url("/T0/s3cr3t?token=s3cr3t"), .origin = "cfg.toml:3"}, "",
                  numbered(1));
  EXPECT_EQ(dispatcher.drain(), 1);
  const auto lines = warnings.lines();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_THAT(lines[0], HasSubstr("did not get completed of session 1: HTTP 404"));
  EXPECT_THAT(lines[0], HasSubstr("(cfg.toml:3)"));
  EXPECT_THAT(lines[0], ::testing::Not(HasSubstr("s3cr3t")));
}

TEST(Dispatcher, AHangingReceiverHoldsTheEndNoLongerThanTheTimeout) {
  WebhookReceiver receiver;
  receiver.answer({.status = 200, .headers = {}, .hold = true});
  Warnings warnings;
  Dispatcher dispatcher(warnings.sink());
  const NotifyTarget target{.url = receiver.url("/h"), .timeout = std::chrono::seconds(1)};
  const auto posted = std::chrono::steady_clock::now();
  dispatcher.post(target, "", numbered(1));
  dispatcher.post(target, "", numbered(2));
  // post() never waits for the receiver, which holds the first request until released.
  EXPECT_LT(std::chrono::steady_clock::now() - posted, std::chrono::milliseconds(500));
  ASSERT_TRUE(receiver.wait_for(1));
  const auto draining = std::chrono::steady_clock::now();
  EXPECT_EQ(dispatcher.drain(), 2);
  // The timeout (1 s) and the time a cancel takes to land, not the receiver's time.
  EXPECT_LT(std::chrono::steady_clock::now() - draining, std::chrono::seconds(3));
  receiver.release();
  const auto lines = warnings.lines();
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_THAT(lines[1], HasSubstr("of session 2: the process ended before it was delivered"));
  // Posts after the end are dropped, and said so.
  dispatcher.post(target, "", numbered(3));
  EXPECT_THAT(warnings.lines().back(), HasSubstr("posted after the notifications were drained"));
}

TEST(Dispatcher, EachTargetIsWaitedForNoLongerThanItsOwnTimeout) {
  WebhookReceiver receiver;
  receiver.answer({.status = 200, .headers = {}, .hold = true});
  ralph::testing::TempDir dir;
  const auto flag = dir.path() / "flag";
  std::mutex mutex;
  std::condition_variable cut;
  bool hook_cut = false;
  Dispatcher dispatcher([&](const std::string& line) {
    std::lock_guard lock(mutex);
    hook_cut = hook_cut || line.find("webhook") != std::string::npos;
    cut.notify_all();
  });
  // A program with a long timeout, busy until the hanging webhook's delivery is cut short.
  dispatcher.post(
      {.command = {"sh", "-c", "while [ ! -e \"$0\" ]; do sleep 0.02; done", flag.string()},
       .timeout = std::chrono::seconds(60)},
      "", numbered(1));
  dispatcher.post({.url = receiver.url("/h"), .timeout = std::chrono::seconds(1)}, "", numbered(1));
  ASSERT_TRUE(receiver.wait_for(1));
  std::thread release([&] {
    std::unique_lock lock(mutex);
    cut.wait(lock, [&] { return hook_cut; });
    dir.write("flag", "");
  });
  const auto draining = std::chrono::steady_clock::now();
  // The webhook's 1 s, then the program ends: not the program's 60 s.
  EXPECT_EQ(dispatcher.drain(), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - draining, std::chrono::seconds(5));
  release.join();
  receiver.release();
}

TEST(Dispatcher, AFullQueueDropsAndReports) {
  WebhookReceiver receiver;
  receiver.answer({.status = 200, .headers = {}, .hold = true});
  Warnings warnings;
  Dispatcher dispatcher(warnings.sink(), 1);
  const NotifyTarget target{.url = receiver.url("/h"), .timeout = std::chrono::seconds(1)};
  dispatcher.post(target, "", numbered(1));
  dispatcher.post(target, "", numbered(2));
  dispatcher.post(target, "", numbered(3));
  const auto lines = warnings.lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_THAT(lines.back(), HasSubstr("too many notifications waiting; this one was dropped"));
  receiver.release();
  dispatcher.drain();
}

} // namespace
} // namespace ralph::notify
