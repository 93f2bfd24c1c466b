#include "ralph/verify/evidence_verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace ralph::verify {
namespace {

using ::testing::HasSubstr;

ToolRecord call(std::string id, std::string name, std::string arguments, std::optional<int> exit,
                bool changed = false) {
  ToolRecord record;
  record.id = std::move(id);
  record.name = std::move(name);
  record.arguments = std::move(arguments);
  record.exit_code = exit;
  record.changed_workspace = changed;
  return record;
}

class EvidenceTest : public ::testing::Test {
protected:
  Verdict check(std::string answer, std::vector<ToolRecord> tools,
                std::vector<std::string> verify_commands = {}) {
    m_messages.clear();
    for (const auto& tool : tools) {
      Message result;
      result.role = Role::tool;
      result.tool_call_id = tool.id;
      result.content = "FAILED: test_x\nexit code: " + std::to_string(tool.exit_code.value_or(-1));
      m_messages.push_back(result);
    }
    Attempt attempt;
    attempt.raw_answer = std::move(answer);
    attempt.tools = std::move(tools);
    attempt.conversation = m_messages;
    EvidenceVerifier verifier(EvidenceSettings{}, std::move(verify_commands));
    return verifier.verify(attempt, CancelToken());
  }

  std::vector<Message> m_messages;
};

constexpr const char* k_claim = "Implemented and tested.\n<promise>DONE</promise>";

TEST_F(EvidenceTest, MarkerAndPassingCheckAfterTheLastChangePass) {
  const auto verdict = check(k_claim, {call("1", "write_file", "{}", std::nullopt, true),
                                       call("2", "shell", R"({"command":"make test"})", 0)});
  EXPECT_EQ(verdict.result, Outcome::pass) << verdict.feedback;
  ASSERT_TRUE(verdict.evidence);
  EXPECT_EQ(verdict.evidence->command, "make test");
  EXPECT_EQ(verdict.evidence->exit_code, 0);
}

TEST_F(EvidenceTest, NoMarkerIsIncomplete) {
  const auto verdict = check("Implemented.", {call("1", "shell", R"({"command":"make"})", 0)});
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "incomplete");
}

TEST_F(EvidenceTest, MarkerWithoutEvidenceIsRejected) {
  const auto verdict = check(k_claim, {call("1", "write_file", "{}", std::nullopt, true)});
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "no_evidence");
  EXPECT_THAT(verdict.feedback, HasSubstr("without evidence"));
}

TEST_F(EvidenceTest, EvidenceOlderThanTheLastChangeIsStale) {
  const auto verdict =
      check(k_claim, {call("1", "shell", R"({"command":"make test"})", 0),
                      call("2", "edit_file", R"({"path":"a.c"})", std::nullopt, true)});
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "no_evidence");
  EXPECT_THAT(verdict.feedback, HasSubstr("stale"));
  EXPECT_THAT(verdict.feedback, HasSubstr("edit_file"));
}

TEST_F(EvidenceTest, ReadOnlyCallsAfterTheCheckKeepItFresh) {
  const auto verdict = check(k_claim, {call("1", "shell", R"({"command":"make test"})", 0),
                                       call("2", "read_file", R"({"path":"a.c"})", std::nullopt)});
  EXPECT_EQ(verdict.result, Outcome::pass) << verdict.feedback;
}

TEST_F(EvidenceTest, FailingCheckIsReadFromTheExitCodeNotTheText) {
  // The output says nothing alarming; the exit code decides.
  const auto verdict = check(k_claim, {call("1", "shell", R"({"command":"make test"})", 2)});
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "test_failed");
  EXPECT_THAT(verdict.feedback, HasSubstr("exited with code 2"));
}

TEST_F(EvidenceTest, WithVerifyCommandsOnlyThoseRunsCount) {
  const std::vector<std::string> verify_commands = {"pytest"};
  const auto fake =
      check(k_claim, {call("1", "shell", R"({"command":"echo all good"})", 0)}, verify_commands);
  EXPECT_EQ(fake.result, Outcome::fail);
  EXPECT_EQ(fake.category.name(), "no_evidence");
  const auto real =
      check(k_claim, {call("1", "shell", R"({"command":"cd app && CI=1 pytest 2>&1"})", 0)},
            verify_commands);
  EXPECT_EQ(real.result, Outcome::pass) << real.feedback;
  EXPECT_THAT(real.feedback, HasSubstr("a run of the verify command `pytest`"));
}

TEST_F(EvidenceTest, ACommandThatOnlyMentionsTheVerifyCommandIsNoRunOfIt) {
  const std::vector<std::string> verify_commands = {"sh test.sh"};
  for (const char* line :
       {R"(echo 'would run: sh test.sh')", R"(grep "sh test.sh" notes)", "sh test.sh || true",
        "sh test.sh | tail -5", "sh test.sh; true", "sh test.sh --only-fast"}) {
    const std::string arguments = nlohmann::json{{"command", line}}.dump();
    const auto verdict = check(k_claim, {call("1", "shell", arguments, 0)}, verify_commands);
    EXPECT_EQ(verdict.category.name(), "no_evidence") << line;
  }
  const auto real =
      check(k_claim, {call("1", "shell", R"({"command":"sh test.sh"})", 0)}, verify_commands);
  EXPECT_EQ(real.result, Outcome::pass) << real.feedback;
}

TEST_F(EvidenceTest, WithoutAVerifyCommandOnlyCheckCommandsCount) {
  // `cat app.txt` exits 0 after a failing test: it proves nothing.
  const auto verdict = check(k_claim, {call("1", "shell", R"({"command":"python3 -m pytest"})", 1),
                                       call("2", "shell", R"({"command":"cat app.txt"})", 0)});
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "test_failed") << verdict.feedback;
  ASSERT_TRUE(verdict.evidence);
  EXPECT_EQ(verdict.evidence->command, "python3 -m pytest");
}

TEST_F(EvidenceTest, EvidenceCommandsPatternsSayWhatCountsAndTheVerdictNamesIt) {
  EvidenceSettings settings;
  settings.commands = {"./check.sh*"};
  m_messages.clear();
  Attempt attempt;
  attempt.raw_answer = k_claim;
  attempt.tools = {call("1", "shell", R"({"command":"./check.sh --all"})", 0),
                   call("2", "shell", R"({"command":"cat app.txt"})", 0)};
  EvidenceVerifier verifier(settings, {});
  const auto verdict = verifier.verify(attempt, CancelToken());
  EXPECT_EQ(verdict.result, Outcome::pass) << verdict.feedback;
  EXPECT_THAT(verdict.feedback, HasSubstr("`./check.sh --all` passed"));
  EXPECT_THAT(verdict.feedback, HasSubstr("pattern `./check.sh*`"));

  settings.commands = {"*"}; // anything counts, as before the setting
  EvidenceVerifier anything(settings, {});
  const auto lax = anything.verify(attempt, CancelToken());
  ASSERT_TRUE(lax.evidence);
  EXPECT_EQ(lax.evidence->command, "cat app.txt");
}

TEST_F(EvidenceTest, NoEvidenceFeedbackSaysWhatCounts) {
  const auto verdict = check(k_claim, {call("1", "shell", R"({"command":"cat app.txt"})", 0)});
  EXPECT_EQ(verdict.category.name(), "no_evidence");
  EXPECT_THAT(verdict.feedback, HasSubstr("pytest*"));
}

TEST_F(EvidenceTest, MarkerInAToolResultIsNoClaim) {
  const auto verdict = check("Still working.", {call("1", "shell", R"({"command":"make"})", 0)});
  EXPECT_EQ(verdict.category.name(), "incomplete");
}

} // namespace
} // namespace ralph::verify
