// The agent's bound on sub-queries: counted across threads, a warning at 80 %, refusals once
// spent, and their usage counted into the attempt.

#include "rlm/rlm_test_support.h"

#include "ralph/rlm/rlm_agent.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace ralph::rlm {
namespace {

using agent::AgentOutcome;
using agent::AgentStop;
using ::testing::HasSubstr;
using testing::lua_call;
using ::testing::Not;

// "ask N" makes N sub-queries one after the other and prints each answer or refusal.
ExecResult ask(std::string_view code, const SubQueryFn& sub_query) {
  ExecResult result;
  const int count = std::stoi(std::string(code.substr(4)));
  for (int i = 0; i < count; ++i) {
    const auto answer = sub_query(SubQuery{"q" + std::to_string(i), "slice"});
    result.output += (answer ? answer->text : "ERROR " + answer.error().message) + "\n";
  }
  return result;
}

class RlmAgentSubQueries : public testing::RlmAgentFixture {
protected:
  RlmAgentSubQueries() {
    options.settings.max_sub_queries = 5;
    options.sub_model = "scripted/sub";
    sub_query = [this](const SubQuery& query) -> Result<SubAnswer> {
      ++inner_calls;
      return SubAnswer{"answer to " + query.query, Usage{.input_tokens = 100, .output_tokens = 7}};
    };
    sandboxes.handler = [](std::string_view code, const SubQueryFn& wrapped, const CancelToken&) {
      return ask(code, wrapped);
    };
  }

  std::atomic<int> inner_calls{0};
};

TEST_F(RlmAgentSubQueries, WarnsAtEightyPercentAndRefusesOnceSpent) {
  provider.push_calls({lua_call("c1", "ask 3")});
  provider.push_calls({lua_call("c2", "ask 1")}); // 4 of 5: 80 %
  provider.push_calls({lua_call("c3", "ask 3")}); // 1 more, then 2 refused
  provider.push_text("done");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::answered);
  EXPECT_EQ(inner_calls.load(), 5);
  const std::string& first = provider.sent[1].messages.back().content;
  EXPECT_THAT(first, Not(HasSubstr("[warning")));
  const std::string& second = provider.sent[2].messages.back().content;
  EXPECT_THAT(second, HasSubstr("answer to q0"));
  EXPECT_THAT(second, HasSubstr("[warning: 4 of 5 sub-queries used]"));
  const std::string& third = provider.sent[3].messages.back().content;
  EXPECT_THAT(third, HasSubstr("answer to q0"));
  EXPECT_THAT(third, HasSubstr("ERROR sub-query budget spent: 5 of 5 llm_query calls used in this "
                               "attempt; answer with what you have"));
  EXPECT_THAT(third, HasSubstr("[warning: 5 of 5 sub-queries used; llm_query refuses from now on"));

  const auto warnings = sink.of<event::BudgetWarning>();
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0].budget, BudgetKind::sub_queries);
  EXPECT_EQ(warnings[0].percent, 80);
  EXPECT_EQ(warnings[1].percent, 100);
}

TEST_F(RlmAgentSubQueries, SpendingAllAtOnceGivesOneNotice) {
  provider.push_calls({lua_call("c1", "ask 7")});
  provider.push_text("done");
  run();

  EXPECT_EQ(inner_calls.load(), 5);
  const std::string& result = provider.sent[1].messages.back().content;
  EXPECT_THAT(result, Not(HasSubstr("[warning: 4 of 5")));
  EXPECT_THAT(result, HasSubstr("[warning: 5 of 5 sub-queries used; llm_query refuses"));
  EXPECT_EQ(sink.of<event::BudgetWarning>().size(), 1u);
}

TEST_F(RlmAgentSubQueries, TheBudgetIsPerAttempt) {
  provider.push_calls({lua_call("c1", "ask 5")});
  provider.push_text("first");
  run();
  provider.push_calls({lua_call("c2", "ask 5")});
  provider.push_text("second");
  run();

  EXPECT_EQ(inner_calls.load(), 10);
  EXPECT_THAT(provider.sent[3].messages.back().content, Not(HasSubstr("ERROR")));
}

TEST_F(RlmAgentSubQueries, UsageIsCountedIntoTheOutcomeAndReported) {
  provider.push_calls({lua_call("c1", "ask 3")});
  provider.push_text("done");
  const AgentOutcome outcome = run();

  // Two model calls (10 + 10 input, 3 + 2 output) and three sub-queries (100 + 7 each).
  EXPECT_EQ(outcome.usage.input_tokens, 20 + 300);
  EXPECT_EQ(outcome.usage.output_tokens, 5 + 21);
  // Budgets count the model calls reported: the sub-queries come as one, on their own model.
  const auto& finished = observer.model_calls;
  ASSERT_EQ(finished.size(), 3u);
  EXPECT_EQ(finished[0].model, "scripted/m");
  EXPECT_EQ(finished[1].model, "scripted/sub");
  EXPECT_FALSE(finished[1].stop_reason);
  EXPECT_EQ(finished[1].requests, 3);
  EXPECT_EQ(finished[1].usage.input_tokens, 300);
  EXPECT_EQ(finished[1].usage.output_tokens, 21);
  const auto agent_finished = sink.of<event::AgentFinished>();
  ASSERT_EQ(agent_finished.size(), 1u);
  EXPECT_EQ(agent_finished[0].usage.input_tokens, 320);
}

TEST_F(RlmAgentSubQueries, FailedSubQueriesCountButCostNothing) {
  sub_query = [this](const SubQuery&) -> Result<SubAnswer> {
    ++inner_calls;
    return fail(ErrorKind::provider, "HTTP 500");
  };
  provider.push_calls({lua_call("c1", "ask 5")});
  provider.push_text("done");
  const AgentOutcome outcome = run();

  EXPECT_EQ(inner_calls.load(), 5);
  EXPECT_THAT(provider.sent[1].messages.back().content, HasSubstr("ERROR HTTP 500"));
  EXPECT_THAT(provider.sent[1].messages.back().content,
              HasSubstr("[warning: 5 of 5 sub-queries used"));
  EXPECT_EQ(outcome.usage.input_tokens, 20);
}

TEST_F(RlmAgentSubQueries, ConcurrentCallsNeverPassTheLimit) {
  options.settings.max_sub_queries = 60;
  std::atomic<int> refused{0};
  std::atomic<std::int64_t> seen_input{0};
  sandboxes.handler = [&](std::string_view, const SubQueryFn& wrapped, const CancelToken&) {
    // As a batch does it: several helper threads at once.
    std::vector<std::thread> threads;
    threads.reserve(8);
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 10; ++i) {
          const auto answer = wrapped(SubQuery{fmt::format("t{} q{}", t, i), "slice"});
          if (answer) {
            seen_input += answer->usage.input_tokens;
          } else {
            ++refused;
          }
        }
      });
    }
    for (auto& thread : threads) {
      thread.join();
    }
    ExecResult result;
    result.output = "batch done";
    return result;
  };
  provider.push_calls({lua_call("c1", "batch()")});
  provider.push_text("done");
  const AgentOutcome outcome = run();

  EXPECT_EQ(inner_calls.load(), 60);
  EXPECT_EQ(refused.load(), 20);
  EXPECT_EQ(seen_input.load(), 6000);
  EXPECT_EQ(outcome.usage.input_tokens, 20 + 6000);
  EXPECT_THAT(provider.sent[1].messages.back().content,
              HasSubstr("[warning: 60 of 60 sub-queries used"));
}

TEST_F(RlmAgentSubQueries, NoSubQueryFunctionRefusesWithAMessage) {
  sub_query = nullptr;
  provider.push_calls({lua_call("c1", "ask 1")});
  provider.push_text("done");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::answered);
  EXPECT_THAT(provider.sent[1].messages.back().content,
              HasSubstr("ERROR llm_query is not available"));
}

} // namespace
} // namespace ralph::rlm
