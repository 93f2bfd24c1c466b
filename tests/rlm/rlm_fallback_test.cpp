// When the step budget runs out: the fallback extraction call over the recorded trajectory.

#include "rlm/rlm_test_support.h"
#include "rlm/trajectory.h"

#include "ralph/rlm/rlm_agent.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ralph::rlm {
namespace {

using agent::AgentOutcome;
using agent::AgentStop;
using testing::every_call_answered;
using ::testing::HasSubstr;
using testing::lua_call;
using ::testing::Not;
using testing::user_message;

class RlmAgentFallback : public testing::RlmAgentFixture {
protected:
  RlmAgentFallback() {
    options.settings.max_steps = 2;
    sandboxes.handler = [](std::string_view code, const SubQueryFn&, const CancelToken&) {
      ExecResult result;
      result.output = "OUTPUT OF " + std::string(code);
      return result;
    };
    conversation.push_back(Message{.role = Role::assistant, .content = "Earlier answer."});
    conversation.push_back(user_message("FEEDBACK: name both signatories."));
  }

  // The model never stops calling the tool.
  void keep_calling(int turns) {
    for (int i = 1; i <= turns; ++i) {
      provider.push_calls({lua_call("c" + std::to_string(i), "step" + std::to_string(i) + "()")},
                          "NOTE " + std::to_string(i));
    }
  }
};

TEST_F(RlmAgentFallback, StepsRunOutThenOneCallWithoutToolsOverTheTrajectoryAnswers) {
  keep_calling(2);
  provider.push_text("Alice and Bob signed (fallback).");
  const AgentOutcome outcome = run();

  // Answered, not max_steps: the outer loop verifies an answered attempt, and retries a
  // max_steps one without looking at its answer.
  EXPECT_EQ(outcome.stop, AgentStop::answered);
  EXPECT_EQ(outcome.answer, "Alice and Bob signed (fallback).");
  EXPECT_FALSE(outcome.error.has_value());
  EXPECT_EQ(outcome.steps, 3);
  EXPECT_EQ(outcome.usage.input_tokens, 30);
  EXPECT_EQ(sandboxes.executed, std::vector<std::string>{"step1()"})
      << "the last step's call is not run: its result would go unread";

  ASSERT_EQ(provider.sent.size(), 3u);
  const auto& fallback = provider.sent[2];
  EXPECT_TRUE(fallback.tools.empty());
  EXPECT_THAT(fallback.system, ::testing::StartsWith("Answer in three bullet points."));
  EXPECT_THAT(fallback.system, HasSubstr("no tools"));
  ASSERT_EQ(fallback.messages.size(), 1u);
  const std::string& prompt = fallback.messages[0].content;
  EXPECT_THAT(prompt, HasSubstr("## Request\nWho signed the contract?"));
  EXPECT_THAT(prompt, HasSubstr("FEEDBACK: name both signatories."));
  EXPECT_THAT(prompt, Not(HasSubstr("Earlier answer.")));
  EXPECT_THAT(prompt, HasSubstr("\"contract.txt\""));
  EXPECT_THAT(prompt, HasSubstr("model's note: NOTE 1"));
  EXPECT_THAT(prompt, HasSubstr("code:\nstep1()\noutput:\nOUTPUT OF step1()"));
  EXPECT_THAT(prompt, Not(HasSubstr("OUTPUT OF step2()")));

  EXPECT_TRUE(every_call_answered(conversation));
  ASSERT_GE(conversation.size(), 2u);
  const Message& unrun = conversation[conversation.size() - 2];
  EXPECT_EQ(unrun.tool_call_id, "c2");
  EXPECT_THAT(unrun.content, HasSubstr("[not run: the step budget of 2 model calls ran out]"));
  EXPECT_EQ(conversation.back().role, Role::assistant);
  EXPECT_EQ(conversation.back().content, "Alice and Bob signed (fallback).");

  const auto warnings = sink.of<event::Warning>();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0].text, HasSubstr("step budget of 2 model calls ran out"));
  EXPECT_EQ(observer.model_calls.size(), 3u);
  ASSERT_EQ(sink.of<event::AgentFinished>().size(), 1u);
  EXPECT_EQ(sink.of<event::AgentFinished>()[0].answer, "Alice and Bob signed (fallback).");
}

TEST_F(RlmAgentFallback, TheTrajectoryKeepsTheMostRecentExecutionsWithinItsCap) {
  options.settings.max_steps = 6;
  options.fallback_trajectory_chars = 400;
  sandboxes.handler = [](std::string_view code, const SubQueryFn&, const CancelToken&) {
    ExecResult result;
    result.output = std::string(code) + " SAID " + std::string(100, 'x');
    return result;
  };
  keep_calling(6);
  provider.push_text("salvaged");
  run();

  const std::string& prompt = provider.sent.back().messages.at(0).content;
  EXPECT_THAT(prompt, HasSubstr("step5() SAID"));
  EXPECT_THAT(prompt, Not(HasSubstr("step1() SAID")));
  EXPECT_THAT(prompt, HasSubstr("executions"));
  EXPECT_THAT(prompt, HasSubstr("are left out to fit"));
}

TEST_F(RlmAgentFallback, ProviderErrorInTheFallbackFailsWithAClearError) {
  keep_calling(2);
  provider.push_error(ErrorKind::network, "connection refused");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::failed);
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(outcome.error->kind, ErrorKind::network);
  EXPECT_EQ(outcome.error->message, "the step budget of 2 model calls ran out and the fallback "
                                    "extraction failed: connection refused");
  ASSERT_EQ(sink.of<event::Failure>().size(), 1u);
  EXPECT_EQ(sink.of<event::Failure>()[0].message, outcome.error->message);
  EXPECT_TRUE(every_call_answered(conversation));
}

TEST_F(RlmAgentFallback, EmptyFallbackAnswerFailsWithAClearError) {
  keep_calling(2);
  provider.push_text("  \n");
  const AgentOutcome outcome = run();

  EXPECT_EQ(outcome.stop, AgentStop::failed);
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_THAT(outcome.error->message,
              HasSubstr("the step budget of 2 model calls ran out and the fallback extraction "
                        "failed: the model's answer was empty"));
  EXPECT_EQ(conversation.back().role, Role::tool) << "no empty answer is added";
  EXPECT_TRUE(every_call_answered(conversation));
}

TEST_F(RlmAgentFallback, CancelBeforeTheFallbackEndsCancelled) {
  keep_calling(2);
  provider.push_text("not asked");
  CancelToken cancel;
  // The second model call is the last step; cancel as it returns.
  provider.on_chat = [&](const CancelToken& token) {
    if (provider.sent.size() == 2) {
      token.cancel();
    }
  };
  const AgentOutcome outcome = run(cancel);

  EXPECT_EQ(outcome.stop, AgentStop::cancelled);
  EXPECT_EQ(provider.sent.size(), 2u);
  EXPECT_TRUE(every_call_answered(conversation));
}

TEST(RlmTrajectory, EmptyRecordSaysSo) {
  EXPECT_EQ(render_trajectory({}, 100), "(no code was run in this attempt)\n");
}

TEST(RlmTrajectory, AllStepsFitWithoutAMarker) {
  const std::vector<TrajectoryStep> steps = {{.step = 1, .code = "a()", .output = "A"},
                                             {.step = 2, .code = "b()", .failed = true}};
  const std::string text = render_trajectory(steps, 1000);
  EXPECT_EQ(text, "--- execution 1 (model turn 1) ---\ncode:\na()\noutput:\nA\n"
                  "--- execution 2 (model turn 2, failed) ---\ncode:\nb()\noutput:\n(no output)\n");
}

TEST(RlmTrajectory, ANewestStepLargerThanTheBudgetKeepsItsHeadAndTail) {
  const std::vector<TrajectoryStep> steps = {
      {.step = 1, .code = "old()", .output = "old output"},
      {.step = 2, .code = "big()", .output = "HEAD" + std::string(5000, 'y') + "TAIL"}};
  const std::string text = render_trajectory(steps, 1000);
  EXPECT_LT(text.size(), 1200u);
  EXPECT_THAT(text, HasSubstr("[the first 1 executions"));
  EXPECT_THAT(text, HasSubstr("big()"));
  EXPECT_THAT(text, HasSubstr("TAIL"));
  EXPECT_THAT(text, HasSubstr("bytes omitted"));
  EXPECT_THAT(text, Not(HasSubstr("old output")));
}

TEST(RlmTrajectory, TheCapCountsCodePointsNotBytes) {
  // 300 two-byte characters: 600 bytes, but 300 code points fit in a 400 budget.
  std::string accented;
  for (int i = 0; i < 300; ++i) {
    accented += "é";
  }
  const std::vector<TrajectoryStep> steps = {{.step = 1, .code = "x()", .output = accented}};
  EXPECT_THAT(render_trajectory(steps, 400), HasSubstr(accented));
}

} // namespace
} // namespace ralph::rlm
