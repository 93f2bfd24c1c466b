// A session's notifications through the library: its budget warnings and its end reach a real
// HTTP receiver; sessions that are part of another do not notify; a missing signing key is a
// configuration error of prepare().
#include "notify/webhook_receiver.h"
#include "support/recording_sink.h"
#include "support/temp_dir.h"

#include "ralph/session/session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::session {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using testing::WebhookReceiver;

// Writes hello.txt wrong and says it is done, then fixes it after the feedback.
constexpr const char* k_hello_script = R"({"model": "scripted", "turns": [
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hi\n"}}]},
  {"text": "Done."},
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "Hello\n"}}]},
  {"text": "Fixed."}
]})";

struct Fixture {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "work";
  WebhookReceiver receiver;
  Runtime runtime{Environment::of({{"HOOK_KEY", "hook-key-0123456789"}})};

  Fixture() { std::filesystem::create_directories(workspace); }

  SessionRequest request(std::vector<NotifyEvent> events) const {
    SessionRequest out{.goal = "Write Hello to hello.txt.", .workspace = workspace};
    out.config.model = "scripted/" + dir.write("hello.json", k_hello_script).string();
    out.config.verify.commands = {"grep -qx Hello hello.txt"};
    out.config.loop.max_iterations = 2;
    out.config.notify = {NotifyTarget{.url = receiver.url("/n"),
                                      .events = std::move(events),
                                      .secret_env = "HOOK_KEY",
                                      .origin = "cfg.toml:1"}};
    return out;
  }
};

TEST(SessionNotifications, ABudgetWarningAndTheEndReachTheReceiver) {
  Fixture f;
  testing::RecordingSink events;
  const auto report =
      run_goal(f.runtime, f.request({NotifyEvent::budget_warning, NotifyEvent::completed}), {},
               events, CancelToken());
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->status, Status::completed);
  EXPECT_EQ(f.runtime.drain_notifications(), 0);
  const auto got = f.receiver.received();
  ASSERT_EQ(got.size(), 2U);
  const auto warning = nlohmann::json::parse(got[0].body);
  EXPECT_EQ(warning["event"], "budget_warning");
  EXPECT_EQ(warning["session"], report->session_id);
  EXPECT_EQ(warning["budget"]["kind"], "iterations");
  EXPECT_EQ(warning["attempt"], 2);
  EXPECT_EQ(got[0].headers.count("x-ralph-signature-256"), 1U);
  const auto end = nlohmann::json::parse(got[1].body);
  EXPECT_EQ(end["event"], "completed");
  EXPECT_EQ(end["verified"], true);
  EXPECT_EQ(end["attempts"], 2);
  EXPECT_EQ(end["reason"], report->reason);
}

TEST(SessionNotifications, ASessionThatIsPartOfAnotherDoesNotNotify) {
  Fixture f;
  SessionRequest request = f.request({NotifyEvent::completed});
  request.parent_id = "20260101-000000-000000000000";
  testing::RecordingSink events;
  const auto report = run_goal(f.runtime, std::move(request), {}, events, CancelToken());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(f.runtime.drain_notifications(), 0);
  EXPECT_TRUE(f.receiver.received().empty());
}

TEST(SessionNotifications, AnUnsetSigningKeyIsAConfigErrorBeforeAnythingRuns) {
  Fixture f;
  Runtime bare{Environment::of({})};
  const auto prepared =
      Session::prepare(bare, f.request({NotifyEvent::completed}), {}, CancelToken());
  ASSERT_FALSE(prepared);
  EXPECT_EQ(prepared.error().kind, ErrorKind::config);
  EXPECT_EQ(prepared.error().message,
            "cfg.toml:1: notify.secret_env: HOOK_KEY is not set (it holds the webhook's signing "
            "key)");
}

} // namespace
} // namespace ralph::session
