#include "ralph/core/event_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph {
namespace {

TEST(EventJson, EachPayloadHasItsOwnFields) {
  Event started{.iteration = 2, .payload = event::AttemptStarted{.max_iterations = 5}};
  EXPECT_EQ(event_to_json(started),
            nlohmann::json({{"type", "attempt_started"}, {"iteration", 2}, {"max_iterations", 5}}));

  Event tool{.iteration = 1,
             .step = 3,
             .payload = event::ToolFinished{.call = {"call_1", "shell", "{}"},
                                            .result = "ok",
                                            .exit_code = 0,
                                            .duration = std::chrono::milliseconds(12)}};
  EXPECT_EQ(event_to_json(tool), nlohmann::json({{"type", "tool_finished"},
                                                 {"iteration", 1},
                                                 {"step", 3},
                                                 {"name", "shell"},
                                                 {"tool_call_id", "call_1"},
                                                 {"result", "ok"},
                                                 {"exit_code", 0},
                                                 {"duration_ms", 12}}));

  Event verdict{.payload = event::VerdictGiven{.verifier = "judge",
                                               .result = Outcome::error,
                                               .category = "timeout",
                                               .policy = ErrorPolicy::fail_open}};
  const nlohmann::json out = event_to_json(verdict);
  EXPECT_EQ(out["result"], "error");
  EXPECT_EQ(out["policy"], "fail_open");
  EXPECT_FALSE(out.contains("exit_code"));

  Event warning{.payload = event::BudgetWarning{
                    .budget = BudgetKind::sub_queries, .percent = 80, .used = 8, .limit = 10}};
  EXPECT_EQ(event_to_json(warning), nlohmann::json({{"type", "budget_warning"},
                                                    {"budget", "sub-queries"},
                                                    {"percent", 80},
                                                    {"used", 8.0},
                                                    {"limit", 10.0}}));
}

TEST(EventJson, AVerdictCarriesItsTestCountsAndTheCountBefore) {
  Event first{
      .payload = event::VerdictGiven{
          .verifier = "command: pytest",
          .result = Outcome::fail,
          .tests = event::TestCounts{.runner = "pytest", .failed = 3, .passed = 3, .total = 6}}};
  EXPECT_EQ(event_to_json(first)["tests"],
            nlohmann::json({{"runner", "pytest"}, {"failed", 3}, {"passed", 3}, {"total", 6}}));

  Event next{
      .payload = event::VerdictGiven{
          .verifier = "command: pytest",
          .result = Outcome::fail,
          .tests = event::TestCounts{
              .runner = "pytest", .failed = 2, .passed = 4, .total = 6, .failed_before = 3}}};
  EXPECT_EQ(event_to_json(next)["tests"]["failed_before"], 3);

  // go test without -v: how many passed, and of how many, is not known.
  Event unknown{
      .payload = event::VerdictGiven{.verifier = "command: go test ./...",
                                     .result = Outcome::fail,
                                     .tests = event::TestCounts{.runner = "go test", .failed = 2}}};
  EXPECT_EQ(event_to_json(unknown)["tests"],
            nlohmann::json(
                {{"runner", "go test"}, {"failed", 2}, {"passed", nullptr}, {"total", nullptr}}));

  Event none{.payload = event::VerdictGiven{.verifier = "judge", .result = Outcome::pass}};
  EXPECT_FALSE(event_to_json(none).contains("tests"));
}

} // namespace
} // namespace ralph
