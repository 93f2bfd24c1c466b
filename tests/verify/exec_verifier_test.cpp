#include "support/temp_dir.h"

#include "ralph/verify/exec_verifier.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace ralph::verify {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using ralph::testing::TempDir;

class ExecVerifierTest : public ::testing::Test {
protected:
  ExecVerifierTest() {
    m_conversation = {
        Message{.role = Role::user, .content = "earlier goal"},
        Message{.role = Role::assistant, .content = "earlier answer"},
        Message{.role = Role::user, .content = "make the tests pass"},
        Message{.role = Role::assistant,
                .content = "",
                .tool_calls = {ToolCall{"call_1", "shell", R"({"command":"make test"})"}}},
        Message{
            .role = Role::tool, .content = "ok", .tool_call_id = "call_1", .tool_name = "shell"},
        Message{.role = Role::assistant, .content = "All tests pass."},
    };
    m_attempt.iteration = 2;
    m_attempt.max_iterations = 4;
    m_attempt.goal = "make the tests pass";
    m_attempt.answer = "All tests pass.";
    m_attempt.raw_answer = "All tests pass. <promise>DONE</promise>";
    m_attempt.conversation = m_conversation;
    m_attempt.attempt_begin = 2;
    m_attempt.tools = {ToolRecord{.id = "call_1",
                                  .name = "shell",
                                  .arguments = R"({"command":"make test"})",
                                  .exit_code = 0,
                                  .duration_ms = 120}};
    m_attempt.metadata = {
        .stop_reason = "answered", .duration_ms = 900, .steps = 2, .tool_calls = 1};
    m_attempt.previous_feedback = {"the tests still fail"};
    m_attempt.workspace = m_dir.path();
  }

  Verdict run(const std::string& program, std::chrono::milliseconds timeout = 120s) {
    ExecVerifier verifier(program, {.exec_timeout = timeout}, m_runner);
    return verifier.verify(m_attempt, CancelToken{});
  }

  TempDir m_dir;
  tools::PosixProcessRunner m_runner;
  std::vector<Message> m_conversation;
  Attempt m_attempt;
};

TEST_F(ExecVerifierTest, GivesTheProgramTheAttemptAsJsonOnStdin) {
  const Verdict verdict = run("cat > input.json; echo '{\"result\": \"pass\"}'");
  EXPECT_EQ(verdict.verifier, "exec: cat > input.json; echo '{\"result\": \"pass\"}'");
  EXPECT_EQ(verdict.result, Outcome::pass);
  EXPECT_EQ(verdict.category.name(), "");

  const json input = json::parse(m_dir.read("input.json"));
  EXPECT_EQ(input["iteration"], 2);
  EXPECT_EQ(input["max_iterations"], 4);
  EXPECT_EQ(input["goal"], "make the tests pass");
  EXPECT_EQ(input["answer"], "All tests pass.");
  EXPECT_EQ(input["raw_answer"], "All tests pass. <promise>DONE</promise>");
  EXPECT_EQ(input["workspace"], m_dir.path().string());
  EXPECT_EQ(input["metadata"]["steps"], 2);
  EXPECT_EQ(input["tools"][0]["arguments"]["command"], "make test");
  EXPECT_EQ(input["previous_feedback"], json::array({"the tests still fail"}));
  ASSERT_EQ(input["messages"].size(), 4u);
  EXPECT_EQ(input["messages"][0]["content"], "make the tests pass");
}

TEST_F(ExecVerifierTest, RunsInTheWorkspace) {
  m_dir.write("verdict.json", R"({"result": "fail", "feedback": "from the workspace"})");
  const Verdict verdict = run("cat verdict.json");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.feedback, "from the workspace");
}

TEST_F(ExecVerifierTest, ReadsAFailWithItsCategoryAndFeedback) {
  const Verdict verdict =
      run(R"(echo '{"verdict": "FAIL", "category": "goal_missed", "feedback": "no tests ran"}')");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "goal_missed");
  EXPECT_EQ(verdict.feedback, "no tests ran");
}

TEST_F(ExecVerifierTest, AFailWithoutCategoryIsACheckFailure) {
  const Verdict verdict = run(R"(echo '{"result": "Fail"}')");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "check_failed");
}

TEST_F(ExecVerifierTest, ReadsAnErrorVerdict) {
  EXPECT_EQ(run(R"(echo '{"result": "error", "category": "quota"}')").category.name(), "quota");
  const Verdict verdict = run(R"(echo '{"result": "ERROR", "feedback": "no network"}')");
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "verifier_error");
  EXPECT_EQ(verdict.feedback, "no network");
}

TEST_F(ExecVerifierTest, AcceptsLogLinesBeforeTheVerdict) {
  const Verdict verdict = run(R"(echo checking...; echo 'all fine'; echo '{"result": "pass"}')");
  EXPECT_EQ(verdict.result, Outcome::pass);
}

TEST_F(ExecVerifierTest, UsesTheVerdictWhateverTheExitStatus) {
  const Verdict verdict = run(R"(echo '{"result": "fail", "category": "incomplete"}'; exit 1)");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "incomplete");
  EXPECT_EQ(verdict.evidence->exit_code, 1);
}

TEST_F(ExecVerifierTest, ReportsMalformedOutput) {
  struct Case {
    std::string program;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"echo 'looks good to me'", "stdout is not JSON: `looks good to me`"},
      {"true", "printed nothing on stdout"},
      {R"(echo '["pass"]')", "expected a JSON object, got array"},
      {R"(echo '{"feedback": "x"}')", "the object has no \"result\""},
      {R"(echo '{"result": true}')", "\"result\" must be a string"},
      {R"(echo '{"result": "maybe"}')", "\"result\" must be pass, fail or error, got `maybe`"},
      {R"(echo '{"result": "fail", "category": 3}')", "\"category\" must be a string"},
      {R"(echo '{"result": "fail", "feedback": ["a"]}')", "\"feedback\" must be a string"},
      {R"(echo '{"result": "pass"')", "stdout is not JSON"},
      {"printf '{\"result\": \"pass\", \"x\": '; for i in $(seq 600); do printf '['; done; "
       "for i in $(seq 600); do printf ']'; done; echo '}'",
       "stdout: JSON nested deeper than 512 levels"},
  };
  for (const Case& c : cases) {
    const Verdict verdict = run(c.program);
    EXPECT_EQ(verdict.result, Outcome::error) << c.program;
    EXPECT_EQ(verdict.category.name(), "malformed") << c.program;
    EXPECT_NE(verdict.feedback.find(c.says), std::string::npos) << c.program << "\n"
                                                                << verdict.feedback;
  }
}

TEST_F(ExecVerifierTest, QuotesStderrWhenItExitsWithoutAVerdict) {
  const Verdict verdict = run("echo 'Traceback: no module named judge' >&2; exit 3");
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "malformed");
  EXPECT_NE(verdict.feedback.find("ended with exit code 3"), std::string::npos);
  EXPECT_NE(verdict.feedback.find("Traceback: no module named judge"), std::string::npos);
}

TEST_F(ExecVerifierTest, TimeoutIsAnError) {
  const Verdict verdict = run("sleep 1000", 1s);
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "timeout");
  EXPECT_NE(verdict.feedback.find("after 1 s"), std::string::npos);
}

TEST_F(ExecVerifierTest, AMissingProgramIsNotRunnable) {
  const Verdict verdict = run("ralph-no-such-judge-xyz");
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "not_runnable");
}

TEST_F(ExecVerifierTest, AProgramMayIgnoreALargeStdin) {
  m_attempt.answer = std::string(2 * 1024 * 1024, 'a');
  const Verdict verdict = run(R"(echo '{"result": "pass"}')");
  EXPECT_EQ(verdict.result, Outcome::pass);
}

TEST(ExecVerifier, FactoryRejectsAnEmptyProgram) {
  tools::PosixProcessRunner runner;
  EXPECT_TRUE(make_exec_verifier("./judge", {}, runner).has_value());
  auto verifier = make_exec_verifier(" ", {}, runner);
  ASSERT_FALSE(verifier.has_value());
  EXPECT_EQ(verifier.error().kind, ErrorKind::config);
}

} // namespace
} // namespace ralph::verify
