#include "support/temp_dir.h"

#include "ralph/store/event_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <thread>
#include <vector>

namespace ralph::store {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(EventLog, WritesOneFlushedJsonLinePerEventWithoutEmptyFields) {
  testing::TempDir dir;
  auto log = EventLog::open(dir.path() / "sub" / "events.ndjson", "s-1", Redactor());
  ASSERT_TRUE(log) << log.error().message;
  const Event verdict{.iteration = 2,
                      .payload = event::VerdictGiven{.verifier = "command: make check",
                                                     .result = Outcome::fail,
                                                     .category = "test_failed",
                                                     .exit_code = 0}};
  (*log)->on_event(verdict);
  // Flushed: readable before the log is closed.
  const std::string text = dir.read("sub/events.ndjson");
  ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  const auto line = nlohmann::json::parse(text);
  EXPECT_EQ(line["session"], "s-1");
  EXPECT_EQ(line["type"], "verdict");
  EXPECT_EQ(line["iteration"], 2);
  EXPECT_EQ(line["exit_code"], 0);
  EXPECT_EQ(line["category"], "test_failed");
  EXPECT_EQ(line["result"], "fail");
  EXPECT_EQ(line["verifier"], "command: make check");
  EXPECT_FALSE(line.contains("feedback"));
  EXPECT_FALSE(line.contains("step"));
  EXPECT_TRUE(line["time"].get<std::string>().ends_with("Z"));
}

TEST(EventLog, SessionsSharingOneFileFromManyThreadsWriteWholeLines) {
  testing::TempDir dir;
  auto first = EventLog::open(dir.path() / "events.ndjson", "", Redactor());
  ASSERT_TRUE(first) << first.error().message;
  // Long deltas: a line larger than stdio's buffer would be written in pieces if unguarded.
  const std::string text(20000, 'x');
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, log = (*first)->for_session("s-" + std::to_string(t))] {
      for (int i = 0; i < 50; ++i) {
        log->on_event(Event{.payload = event::TextDelta{.text = text}});
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  std::istringstream lines(dir.read("events.ndjson"));
  std::map<std::string, int> per_session;
  for (std::string line; std::getline(lines, line);) {
    const auto parsed = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << line.substr(0, 80);
    EXPECT_EQ(parsed["text"], text);
    ++per_session[parsed["session"].get<std::string>()];
  }
  ASSERT_EQ(per_session.size(), 8u);
  for (const auto& [session, count] : per_session) {
    EXPECT_EQ(count, 50) << session;
  }
  EXPECT_EQ((*first)->error(), "");
}

TEST(EventLog, SecretsNeverReachTheFile) {
  testing::TempDir dir;
  Redactor redactor;
  redactor.add("sk-live-0123456789");
  std::string env_entry = "GITHUB_TOKEN=ghp_abcdefghijkl";
  std::string other = "PATH=/usr/bin";
  char* environment[] = {env_entry.data(), other.data(), nullptr};
  redactor.add_environment(environment);
  auto log = EventLog::open(dir.path() / "e.ndjson", "s", redactor);
  ASSERT_TRUE(log);
  const Event event{
      .payload = event::ToolFinished{
          .call = {"call_1", "shell", R"({"command": "echo sk-live-0123456789"})"},
          .result = "env: OPENAI=sk-live-0123456789 GH=ghp_abcdefghijkl PATH=/usr/bin"}};
  (*log)->on_event(event);
  const std::string text = dir.read("e.ndjson");
  EXPECT_THAT(text, Not(HasSubstr("sk-live-0123456789")));
  EXPECT_THAT(text, Not(HasSubstr("ghp_abcdefghijkl")));
  EXPECT_THAT(text, HasSubstr("[REDACTED]"));
  EXPECT_THAT(text, HasSubstr("/usr/bin")); // PATH is not a secret
}

TEST(EventLog, UnwritablePathIsAnErrorNamingIt) {
  auto log = EventLog::open("/proc/ralph-cannot-write/e.ndjson", "s", Redactor());
  ASSERT_FALSE(log);
  EXPECT_THAT(log.error().message, HasSubstr("/proc/ralph-cannot-write"));
}

TEST(Redactor, ShortValuesAreNotSecretsAndLongestGoesFirst) {
  Redactor redactor;
  EXPECT_FALSE(redactor.add("abc")); // shorter than k_min_secret_bytes
  EXPECT_TRUE(redactor.empty());
  redactor.add("abcdefgh");
  redactor.add("abcdefgh-extended");
  EXPECT_EQ(redactor.redact("x abcdefgh-extended y abcdefgh"), "x [REDACTED] y [REDACTED]");
}

} // namespace
} // namespace ralph::store
