#include "ralph/verify/evidence_verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  const auto real = check(k_claim, {call("1", "shell", R"({"command":"python3 -m pytest -q"})", 0)},
                          verify_commands);
  EXPECT_EQ(real.result, Outcome::pass) << real.feedback;
}

TEST_F(EvidenceTest, MarkerInAToolResultIsNoClaim) {
  const auto verdict = check("Still working.", {call("1", "shell", R"({"command":"make"})", 0)});
  EXPECT_EQ(verdict.category.name(), "incomplete");
}

} // namespace
} // namespace ralph::verify
