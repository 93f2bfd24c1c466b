// The judge's prompt assembly: section order, each trimming rule, the priority under a tight
// budget, and the budget as a hard bound over many random inputs.
#include "ralph/core/text.h"
#include "ralph/verify/judge_context.h"
#include "ralph/verify/judge_prompt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace ralph::verify {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Message user(std::string text) {
  return Message{.role = Role::user, .content = std::move(text)};
}

Message assistant(std::string text, std::vector<ToolCall> calls = {}) {
  return Message{
      .role = Role::assistant, .content = std::move(text), .tool_calls = std::move(calls)};
}

Message tool(std::string id, std::string name, std::string text, bool is_error = false) {
  return Message{.role = Role::tool,
                 .content = std::move(text),
                 .tool_call_id = std::move(id),
                 .tool_name = std::move(name),
                 .is_error = is_error};
}

// Text between "<tag>\n" and "\n</tag>", or "<absent>".
std::string section(const std::string& user_text, const std::string& tag) {
  const std::string open = "<" + tag + ">\n";
  const std::string close = "</" + tag + ">";
  const std::size_t begin = user_text.find(open);
  if (begin == std::string::npos) {
    return "<absent>";
  }
  const std::size_t end = user_text.find(close, begin);
  return user_text.substr(begin + open.size(), end - begin - open.size());
}

class JudgeContextTest : public ::testing::Test {
protected:
  JudgeContextTest() {
    // Attempt 1: the goal, one tool round, an answer; feedback; attempt 2 (this one).
    conversation = {
        user("Write fizzbuzz.py printing 1 to 15 with Fizz/Buzz, and a test."),
        assistant("", {{"c1", "old_tool_of_attempt_one", R"({"path":"fizzbuzz.py"})"}}),
        tool("c1", "old_tool_of_attempt_one", "wrote 120 bytes"),
        assistant("Done: fizzbuzz.py written."),
        user("Your answer was flagged as incomplete: the test is missing."),
        assistant("Adding the test.", {{"c2", "write_file", R"({"path":"test_fizzbuzz.py"})"}}),
        tool("c2", "write_file", "wrote 300 bytes"),
        assistant("", {{"c3", "shell", R"({"command":"python3 -m pytest -q"})"}}),
        tool("c3", "shell", "exit code 0\n1 passed in 0.01s"),
        assistant("Done: fizzbuzz.py and test_fizzbuzz.py, the test passes."),
    };
    attempt.iteration = 2;
    attempt.max_iterations = 3;
    attempt.goal = conversation[0].content;
    attempt.answer = conversation.back().content;
    attempt.raw_answer = attempt.answer;
    attempt.conversation = conversation;
    attempt.attempt_begin = 4;
    attempt.tools = {
        {.id = "c2",
         .name = "write_file",
         .arguments = "{}",
         .changed_workspace = true,
         .duration_ms = 3},
        {.id = "c3", .name = "shell", .arguments = "{}", .exit_code = 0, .duration_ms = 1250}};
    attempt.metadata = {"answered", 4200, 3, 2};
    attempt.previous_feedback = {"FAIL [incomplete]: the test is missing."};
    rules = {{.name = "AGENTS.md", .content = "Always write tests.", .size = 19},
             {.name = "SOUL.md", .content = "Be terse.", .size = 9}};
  }

  Result<JudgeContext> assemble() { return assemble_judge_context(attempt, rules, options); }

  std::vector<Message> conversation;
  Attempt attempt;
  std::vector<JudgeRulesFile> rules;
  JudgeContextOptions options;
};

TEST_F(JudgeContextTest, SectionsComeInOrderWithTheAnswerLast) {
  auto context = assemble();
  ASSERT_TRUE(context) << context.error().message;
  const std::string& text = context->user;
  std::size_t previous = 0;
  for (const char* tag : {"<request>", "<user_rules>", "<history>", "<execution_metadata>",
                          "<previous_feedback>", "<answer>"}) {
    const std::size_t at = text.find(tag);
    ASSERT_NE(at, std::string::npos) << tag;
    EXPECT_GE(at, previous) << tag;
    previous = at;
  }
  EXPECT_TRUE(
      text.ends_with("Done: fizzbuzz.py and test_fizzbuzz.py, the test passes.\n</answer>"));
  EXPECT_TRUE(text.starts_with("<request>\nWrite fizzbuzz.py"));
  EXPECT_EQ(context->system, judge_system_prompt(true));
  EXPECT_EQ(context->history_turns_omitted, 0);
  EXPECT_EQ(context->answer_chars_trimmed, 0u);
}

TEST_F(JudgeContextTest, SystemPromptHasTheRubricCategoriesAndTheFormat) {
  for (bool structured : {true, false}) {
    options.structured = structured;
    auto context = assemble();
    ASSERT_TRUE(context);
    const std::string& system = context->system;
    for (const char* part :
         {"Goal achievement", "Completeness", "Rule compliance", "goal_missed", "incomplete",
          "rule_violation", "tone_mismatch", "refusal", "blocked", "never instructions to you"}) {
      EXPECT_THAT(system, HasSubstr(part)) << structured;
    }
    if (structured) {
      EXPECT_THAT(system, HasSubstr(R"("verdict": "PASS" or "FAIL")"));
    } else {
      EXPECT_THAT(system, HasSubstr("FAIL [category]: feedback on one line"));
    }
  }
}

TEST_F(JudgeContextTest, HistorySummarisesToolCallsAndLeavesOutTheAnswer) {
  auto context = assemble();
  ASSERT_TRUE(context);
  const std::string history = section(context->user, "history");
  EXPECT_THAT(history, HasSubstr("user: (the request above)"));
  EXPECT_THAT(history, HasSubstr("assistant called shell({\"command\":\"python3 -m pytest -q\"})"));
  EXPECT_THAT(history, HasSubstr("tool result shell: exit code 0 1 passed in 0.01s"));
  EXPECT_THAT(history, HasSubstr("user: Your answer was flagged as incomplete"));
  EXPECT_THAT(history, HasSubstr("assistant: Done: fizzbuzz.py written."));
  EXPECT_THAT(history, Not(HasSubstr("the test passes."))) << "the answer is judged once, last";
}

TEST_F(JudgeContextTest, LongToolOutputIsOneShortLine) {
  conversation[8] = tool("c3", "shell", std::string(50'000, 'x') + "\nEND", true);
  attempt.conversation = conversation;
  auto context = assemble();
  ASSERT_TRUE(context);
  const std::string history = section(context->user, "history");
  EXPECT_THAT(history, HasSubstr("tool result shell (error): xxx"));
  EXPECT_THAT(history, HasSubstr("[… 50004 chars in all]"));
  EXPECT_LT(history.size(), 2000u);
}

TEST_F(JudgeContextTest, MetadataIsThisAttemptsOnly) {
  auto context = assemble();
  ASSERT_TRUE(context);
  const std::string metadata = section(context->user, "execution_metadata");
  EXPECT_EQ(metadata, "attempt: 2 of 3\nstop reason: answered\nduration: 4.2 s\nmodel steps: 3\n"
                      "tool calls: 2\n1. write_file: ok, 3 ms, changed the workspace\n"
                      "2. shell: exit 0, 1.2 s\n");
  EXPECT_THAT(metadata, Not(HasSubstr("old_tool_of_attempt_one")));
}

TEST_F(JudgeContextTest, MetadataShowsFailuresAndBoundsALongToolList) {
  attempt.tools.clear();
  for (int i = 0; i < 100; ++i) {
    attempt.tools.push_back(
        {.id = "c",
         .name = i % 2 == 0 ? "shell" : "read_file",
         .arguments = "{}",
         .exit_code = i % 2 == 0 ? std::optional<int>(i == 98 ? 2 : 0) : std::nullopt,
         .is_error = i == 99,
         .duration_ms = 10});
  }
  auto context = assemble();
  ASSERT_TRUE(context);
  const std::string metadata = section(context->user, "execution_metadata");
  EXPECT_THAT(metadata, HasSubstr("first 70 tool calls not listed: read_file ×35, shell ×35\n"));
  EXPECT_THAT(metadata, HasSubstr("99. shell: exit 2, 10 ms\n100. read_file: failed, 10 ms\n"));
  EXPECT_THAT(metadata, Not(HasSubstr("\n70. ")));
  EXPECT_THAT(metadata, HasSubstr("\n71. shell"));
}

TEST_F(JudgeContextTest, HeartbeatRulesOnlyOnHeartbeatRuns) {
  rules.insert(rules.begin(),
               {.name = "HEARTBEAT.md", .content = "Check the inbox every hour.", .size = 27});
  auto context = assemble();
  ASSERT_TRUE(context);
  EXPECT_THAT(context->user, Not(HasSubstr("HEARTBEAT.md")));
  EXPECT_THAT(context->user, Not(HasSubstr("Check the inbox")));
  EXPECT_THAT(context->user, Not(HasSubstr("heartbeat")));

  attempt.heartbeat = true;
  context = assemble();
  ASSERT_TRUE(context);
  const std::string rules_text = section(context->user, "user_rules");
  EXPECT_THAT(rules_text, HasSubstr("### HEARTBEAT.md\nCheck the inbox every hour.\n"));
  EXPECT_THAT(section(context->user, "execution_metadata"),
              HasSubstr("run: periodic check-in (heartbeat)"));
}

TEST_F(JudgeContextTest, RulesAreCappedFairlyAndCutsAreNoted) {
  options.rules_chars = 1000;
  rules = {
      {.name = "AGENTS.md", .content = std::string(5000, 'a'), .size = 5000},
      {.name = "SOUL.md", .content = std::string(100, 's'), .size = 100},
      {.name = "BIG.md", .content = std::string(900, 'b'), .size = 20000}, // only a prefix was read
      {.name = "LOCKED.md", .error = "Permission denied"}};
  auto context = assemble();
  ASSERT_TRUE(context);
  const std::string text = section(context->user, "user_rules");
  EXPECT_THAT(text, HasSubstr("### SOUL.md\n" + std::string(100, 's') + "\n### BIG.md"));
  EXPECT_THAT(text, HasSubstr("[… AGENTS.md cut: showing the first 450 of 5000 chars …]"));
  EXPECT_THAT(text, HasSubstr("[… BIG.md cut: showing the first 450 of 20000 chars …]"));
  EXPECT_THAT(text, HasSubstr("### LOCKED.md (could not be read: Permission denied)"));
  EXPECT_THAT(text, Not(HasSubstr(std::string(451, 'a'))));
}

TEST_F(JudgeContextTest, NoRulesFilesIsSaid) {
  rules.clear();
  auto context = assemble();
  ASSERT_TRUE(context);
  EXPECT_EQ(section(context->user, "user_rules"), "(no rules files)\n");
}

TEST_F(JudgeContextTest, AnswerTailIsTrimmedWithAMarker) {
  options.answer_chars = 1000;
  attempt.answer = std::string(1000, 'h') + std::string(2500, 't');
  auto context = assemble();
  ASSERT_TRUE(context);
  EXPECT_EQ(section(context->user, "answer"),
            std::string(1000, 'h') + "\n[… 2500 chars trimmed …]\n");
  EXPECT_EQ(context->answer_chars_trimmed, 2500u);
}

TEST_F(JudgeContextTest, CutsLandOnUtf8Boundaries) {
  options.answer_chars = 1001; // inside a 3-byte character
  attempt.answer = "";
  for (int i = 0; i < 600; ++i) {
    attempt.answer += "€";
  }
  auto context = assemble();
  ASSERT_TRUE(context);
  EXPECT_EQ(section(context->user, "answer").substr(0, 999), attempt.answer.substr(0, 999));
  EXPECT_THAT(context->user, HasSubstr("[… 801 chars trimmed …]"));
  EXPECT_EQ(to_valid_utf8(context->user), context->user);
}

TEST_F(JudgeContextTest, InvalidUtf8IsRepaired) {
  attempt.answer = "ok \xff\xfe done";
  attempt.goal = "goal \xc3";
  auto context = assemble();
  ASSERT_TRUE(context);
  EXPECT_EQ(to_valid_utf8(context->user), context->user);
  EXPECT_THAT(context->user, HasSubstr("ok \uFFFD\uFFFD done"));
}

TEST_F(JudgeContextTest, OldestTurnsAreDroppedWholeAndCounted) {
  options.history_turns = 2;
  auto context = assemble();
  ASSERT_TRUE(context);
  // Turns: [goal .. first answer], [feedback .. this attempt's tools]; both fit in 2.
  EXPECT_EQ(context->history_turns_omitted, 0);

  options.history_turns = 1;
  context = assemble();
  ASSERT_TRUE(context);
  const std::string history = section(context->user, "history");
  EXPECT_TRUE(history.starts_with("(1 earlier turns omitted)\nuser: Your answer was flagged"))
      << history;
  EXPECT_THAT(history, Not(HasSubstr("old_tool_of_attempt_one")));
  EXPECT_EQ(context->history_turns_omitted, 1);
}

TEST_F(JudgeContextTest, ATightBudgetDropsHistoryTurnsBeforeAnythingElse) {
  auto full = assemble();
  ASSERT_TRUE(full);
  const std::string full_rules = section(full->user, "user_rules");
  const std::string full_feedback = section(full->user, "previous_feedback");
  options.context_chars = full->system.size() + full->user.size() - 1;
  auto context = assemble();
  ASSERT_TRUE(context);
  EXPECT_EQ(context->history_turns_omitted, 1);
  EXPECT_THAT(section(context->user, "history"), HasSubstr("(1 earlier turns omitted)"));
  EXPECT_EQ(section(context->user, "user_rules"), full_rules);
  EXPECT_EQ(section(context->user, "previous_feedback"), full_feedback);
  EXPECT_EQ(context->answer_chars_trimmed, 0u);
}

// Shrinking the budget step by step: whatever is cut, a more important section is only cut
// once every less important one is gone, and the request and metadata never change.
TEST_F(JudgeContextTest, TrimPriorityHistoryRulesFeedbackThenAnswer) {
  options.min_answer_chars = 100;
  attempt.answer = std::string(3000, 'a');
  attempt.previous_feedback = {std::string(900, '1'), std::string(900, '2')};
  rules = {{.name = "AGENTS.md", .content = std::string(2000, 'r'), .size = 2000}};
  auto full = assemble();
  ASSERT_TRUE(full);
  const std::string full_rules = section(full->user, "user_rules");
  const std::string full_feedback = section(full->user, "previous_feedback");
  const std::string full_answer = section(full->user, "answer");
  bool saw[4] = {};
  for (std::size_t budget = full->system.size() + full->user.size(); budget > 0; budget -= 7) {
    options.context_chars = budget;
    auto context = assemble();
    if (!context) {
      EXPECT_THAT(context.error().message, HasSubstr("request too long"));
      break;
    }
    const std::string& text = context->user;
    ASSERT_LE(context->system.size() + text.size(), budget);
    EXPECT_EQ(section(text, "request"), attempt.goal + "\n");
    EXPECT_EQ(section(text, "execution_metadata"), section(full->user, "execution_metadata"));
    const bool history_full = context->history_turns_omitted == 0;
    const bool rules_full = section(text, "user_rules") == full_rules;
    const bool feedback_full = section(text, "previous_feedback") == full_feedback;
    const bool answer_full = section(text, "answer") == full_answer;
    const bool history_gone = section(text, "history") == "<absent>";
    const bool rules_gone = section(text, "user_rules") == "<absent>";
    const bool feedback_gone = section(text, "previous_feedback") == "<absent>";
    if (!rules_full) {
      EXPECT_TRUE(history_gone) << budget;
    }
    if (!feedback_full) {
      EXPECT_TRUE(history_gone && rules_gone) << budget;
    }
    if (!answer_full) {
      EXPECT_TRUE(history_gone && rules_gone && feedback_gone) << budget;
    }
    saw[0] |= !history_full;
    saw[1] |= !rules_full;
    saw[2] |= !feedback_full;
    saw[3] |= !answer_full;
  }
  EXPECT_TRUE(saw[0] && saw[1] && saw[2] && saw[3]);
}

TEST_F(JudgeContextTest, FeedbackKeepsTheNewestAndCountsTheOmitted) {
  options.feedback_chars = 1000;
  attempt.previous_feedback = {"first: " + std::string(990, 'x'), "second: fix the loop",
                               "third: add the docstring"};
  auto context = assemble();
  ASSERT_TRUE(context);
  EXPECT_EQ(section(context->user, "previous_feedback"),
            "(oldest first)\n(1 older feedback items omitted)\n- second: fix the loop\n"
            "- third: add the docstring\n");

  attempt.previous_feedback = {"old", std::string(3000, 'n')};
  context = assemble();
  ASSERT_TRUE(context);
  EXPECT_EQ(section(context->user, "previous_feedback"),
            "(oldest first)\n(1 older feedback items omitted)\n- " + std::string(1000, 'n') +
                "\n[… 2000 chars trimmed …]\n");
}

TEST_F(JudgeContextTest, FirstAttemptHasNoFeedbackSection) {
  attempt.previous_feedback.clear();
  auto context = assemble();
  ASSERT_TRUE(context);
  EXPECT_EQ(section(context->user, "previous_feedback"), "<absent>");
}

TEST_F(JudgeContextTest, TheRequestIsNeverTrimmed) {
  attempt.goal = std::string(20'000, 'g') + " the end of the request";
  conversation[0].content = attempt.goal;
  attempt.conversation = conversation;
  attempt.answer = std::string(30'000, 'a');
  rules = {{.name = "AGENTS.md", .content = std::string(8000, 'r'), .size = 8000}};
  auto context = assemble();
  ASSERT_TRUE(context);
  EXPECT_EQ(section(context->user, "request"), attempt.goal + "\n");
  EXPECT_LE(context->system.size() + context->user.size(), options.context_chars);
  EXPECT_GT(context->answer_chars_trimmed, 18'000u);
}

TEST_F(JudgeContextTest, ARequestTooLongForTheBudgetIsAnError) {
  attempt.goal = std::string(40'000, 'g');
  auto context = assemble();
  ASSERT_FALSE(context);
  EXPECT_EQ(context.error().kind, ErrorKind::usage);
  EXPECT_THAT(context.error().message,
              HasSubstr("request too long for the judge's context budget of 32000 chars"));
}

TEST_F(JudgeContextTest, TinyBudgetIsAnErrorNotAnOverflow) {
  options.context_chars = 100;
  auto context = assemble();
  ASSERT_FALSE(context);
  EXPECT_THAT(context.error().message, HasSubstr("budget of 100 chars"));
}

TEST_F(JudgeContextTest, EmptyAnswerAndEmptyConversation) {
  attempt.answer.clear();
  attempt.conversation = {};
  attempt.tools.clear();
  auto context = assemble();
  ASSERT_TRUE(context);
  EXPECT_EQ(section(context->user, "answer"), "(empty)\n");
  EXPECT_EQ(section(context->user, "history"), "<absent>");
}

TEST_F(JudgeContextTest, AHugeTurnKeepsItsOpeningAndNewestSteps) {
  std::vector<Message> long_run = {user(attempt.goal)};
  for (int i = 0; i < 200; ++i) {
    const std::string id = "s" + std::to_string(i);
    long_run.push_back(assistant("step " + std::to_string(i), {{id, "shell", "{}"}}));
    long_run.push_back(tool(id, "shell", "ok " + std::to_string(i)));
  }
  long_run.push_back(assistant(attempt.answer));
  attempt.conversation = long_run;
  attempt.attempt_begin = 0;
  auto context = assemble();
  ASSERT_TRUE(context);
  const std::string history = section(context->user, "history");
  EXPECT_TRUE(history.starts_with("user: (the request above)\n[… ")) << history.substr(0, 200);
  EXPECT_THAT(history, HasSubstr("earlier steps of this turn omitted …]"));
  EXPECT_THAT(history, HasSubstr("tool result shell: ok 199\n"));
  EXPECT_LE(history.size(), 6100u);
}

std::string random_text(std::mt19937& rng, std::size_t max_len) {
  static const char* const pieces[] = {"a", "b ", "\n", "é", "€", "😀", "PASS", "\xff", "<x>"};
  std::uniform_int_distribution<std::size_t> length(0, max_len);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(pieces) - 1);
  std::string out;
  const std::size_t n = length(rng);
  while (out.size() < n) {
    out += pieces[pick(rng)];
  }
  return out;
}

TEST(JudgeContextProperty, NeverExceedsTheBudget) {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<std::size_t> budget_of(0, 40'000);
  std::uniform_int_distribution<int> count(0, 12);
  int fitted = 0;
  int refused = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<Message> conversation;
    Attempt attempt;
    attempt.goal = random_text(rng, round % 10 == 0 ? 30'000 : 3000);
    attempt.answer = random_text(rng, round % 3 == 0 ? 40'000 : 5000);
    const int turns = count(rng);
    for (int t = 0; t < turns; ++t) {
      conversation.push_back(user(random_text(rng, 3000)));
      conversation.push_back(
          assistant(random_text(rng, 3000), {{"c", "shell", random_text(rng, 500)}}));
      conversation.push_back(tool("c", "shell", random_text(rng, 5000), t % 2 == 0));
    }
    conversation.push_back(assistant(attempt.answer));
    attempt.conversation = conversation;
    attempt.attempt_begin = conversation.size() > 3 ? conversation.size() - 3 : 0;
    for (int i = count(rng); i > 0; --i) {
      attempt.tools.push_back({.id = "c",
                               .name = random_text(rng, 20),
                               .arguments = "{}",
                               .exit_code = i,
                               .is_error = i % 3 == 0,
                               .duration_ms = i});
      attempt.previous_feedback.push_back(random_text(rng, 2000));
    }
    std::vector<JudgeRulesFile> rules;
    for (const char* name : {"AGENTS.md", "SOUL.md", "HEARTBEAT.md"}) {
      std::string content = random_text(rng, 10'000);
      rules.push_back({.name = name, .content = content, .size = content.size()});
    }
    attempt.heartbeat = round % 2 == 0;
    JudgeContextOptions options;
    options.context_chars = budget_of(rng);
    options.structured = round % 4 == 0;
    auto context = assemble_judge_context(attempt, rules, options);
    if (!context) {
      EXPECT_THAT(context.error().message, HasSubstr("request too long"));
      ++refused;
      continue;
    }
    ++fitted;
    const std::string& text = context->user;
    ASSERT_LE(context->system.size() + text.size(), options.context_chars) << round;
    const std::string goal = attempt.goal.empty() ? "(empty)" : to_valid_utf8(attempt.goal);
    EXPECT_TRUE(text.starts_with("<request>\n" + goal + "\n</request>")) << round;
    EXPECT_TRUE(text.ends_with("</answer>")) << round;
    EXPECT_EQ(to_valid_utf8(text), text) << round;
    EXPECT_NE(text.find("<execution_metadata>"), std::string::npos) << round;
    if (!attempt.heartbeat) {
      EXPECT_EQ(text.find("### HEARTBEAT.md"), std::string::npos) << round;
    }
  }
  EXPECT_GT(fitted, 100);
  EXPECT_GT(refused, 10);
}

} // namespace
} // namespace ralph::verify
