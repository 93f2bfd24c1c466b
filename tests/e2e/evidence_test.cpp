// Verification that cannot be fooled, end to end: `ralph run` against a fake provider, with real
// commands in a temporary workspace. A failure deep inside a huge log is found and the whole log
// kept; ralph's own test runs do not break --protect; only runs of a check count as evidence.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

class EvidenceEndToEnd : public ::testing::Test {
protected:
  EvidenceEndToEnd() {
    workspace.write("test.sh", k_test_script);
    workspace.write("add.sh", k_broken_add);
  }

  RalphOutput run(std::vector<std::string> extra,
                  const std::map<std::string, std::string>& env = {}) const {
    std::vector<std::string> all{
        "run",        "make add.sh add",        "--model",     "openai-compat/agent-model",
        "--base-url", agent.base_url() + "/v1", "--workspace", workspace.path().string(),
        "--json"};
    all.insert(all.end(), extra.begin(), extra.end());
    return run_ralph(all, workspace.path(), env);
  }
  json show(const std::string& id) const { return show_session(id, workspace.path()); }

  FakeProviderServer agent;
  TempDir workspace;
};

TEST_F(EvidenceEndToEnd, AFailureInTheMiddleOfAHugeOutputIsFoundAndTheWholeOutputKept) {
  // About 5 MB of passing lines with one failure in the middle.
  std::string log;
  for (int i = 0; i < 100'000; ++i) {
    if (i == 50'000) {
      log += "FAILED tests/test_mid.py::test_middle - assert 2 == 3\n";
    }
    log += fmt::format("tests/test_{:06}.py::test_case PASSED                      [ 50%]\n", i);
  }
  ASSERT_GT(log.size(), 5'000'000u);
  workspace.write("big.log", log);
  agent.push(text_turn("Done."));

  const auto out = run({"--verify-cmd", "cat big.log; exit 1", "--max-iterations", "1"});

  ASSERT_EQ(out.exit_code, 3) << out.err;
  const auto result = parse_output(out);
  const std::string feedback = result["verdicts"][0]["feedback"].get<std::string>();
  EXPECT_THAT(feedback, HasSubstr("FAILED tests/test_mid.py::test_middle - assert 2 == 3"));
  EXPECT_THAT(feedback, HasSubstr("The whole output"));

  const json record = show(result["session_id"].get<std::string>());
  const json evidence = record["attempts"][0]["verdicts"][0]["evidence"];
  EXPECT_THAT(evidence["excerpt"].get<std::string>(), HasSubstr("FAILED tests/test_mid.py"));
  ASSERT_TRUE(evidence.contains("output_path")) << evidence.dump();
  const std::filesystem::path kept = evidence["output_path"].get<std::string>();
  EXPECT_TRUE(std::filesystem::equivalent(kept.parent_path().parent_path(),
                                          workspace.path() / ".ralph/outputs"));
  EXPECT_TRUE(workspace.read(std::filesystem::relative(kept, workspace.path()).string()) == log)
      << "the file holds the whole output byte for byte";

  const auto text =
      run_ralph({"sessions", "show", result["session_id"].get<std::string>()}, workspace.path());
  EXPECT_THAT(text.out, HasSubstr("whole output: " + kept.string()));
}

// Python writes tests/__pycache__/ as it imports the tests, as it does by default (an empty
// value turns off a PYTHONDONTWRITEBYTECODE the test's own environment may set).
const std::map<std::string, std::string> k_python_writes_caches = {{"PYTHONDONTWRITEBYTECODE", ""}};

// A git work tree with a Python package under tests/ whose test imports app.py.
void python_project(const TempDir& workspace, const char* app) {
  ASSERT_EQ(std::system(("git init -q " + workspace.path().string()).c_str()), 0);
  workspace.write("app.py", app);
  workspace.write("tests/__init__.py", "");
  workspace.write("tests/test_x.py", "import unittest\nimport app\n\n"
                                     "class T(unittest.TestCase):\n"
                                     "    def test_add(self):\n"
                                     "        self.assertEqual(app.add(2, 3), 5)\n");
}

TEST_F(EvidenceEndToEnd, ProtectedTestsAreNotBrokenByRalphsOwnTestRuns) {
  python_project(workspace, "def add(a, b):\n    return a - b\n");
  agent.push(text_turn("Done."));
  // Not the same size as before: Python trusts a cache whose source has the same size and second.
  agent.push(tool_turn("write_file", {{"path", "app.py"},
                                      {"content", "def add(a, b):\n    return a + b  # fixed\n"}}));
  agent.push(text_turn("Fixed add."));

  const auto out =
      run({"--protect", "tests/**", "--verify-cmd", "python3 -m unittest", "--max-iterations", "2"},
          k_python_writes_caches);

  ASSERT_TRUE(std::filesystem::is_directory(workspace.path() / "tests/__pycache__"))
      << "the test run wrote its cache under the protected folder";
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  const auto verdicts = parse_output(out)["verdicts"];
  ASSERT_EQ(verdicts.size(), 4u);
  EXPECT_EQ(verdicts[0]["verifier"], "protected paths");
  EXPECT_EQ(verdicts[0]["result"], "pass") << verdicts[0]["feedback"];
  EXPECT_EQ(verdicts[1]["result"], "fail");
  EXPECT_EQ(verdicts[2]["result"], "pass")
      << "tests/__pycache__ is the test run's, not the agent's: " << verdicts[2]["feedback"];
  EXPECT_EQ(verdicts[3]["result"], "pass");
}

TEST_F(EvidenceEndToEnd, EditingAProtectedTestStillViolates) {
  python_project(workspace, "def add(a, b):\n    return a - b\n");
  agent.push(text_turn("Done."));
  agent.push(tool_turn("write_file", {{"path", "tests/test_x.py"}, {"content", "\n"}}));
  agent.push(text_turn("No failing tests now."));

  const auto out =
      run({"--protect", "tests/**", "--verify-cmd", "python3 -m unittest", "--max-iterations", "2"},
          k_python_writes_caches);

  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto verdicts = parse_output(out)["verdicts"];
  ASSERT_EQ(verdicts.size(), 4u);
  EXPECT_EQ(verdicts[2]["category"], "rule_violation");
  const std::string feedback = verdicts[2]["feedback"].get<std::string>();
  EXPECT_THAT(feedback, HasSubstr("tests/test_x.py (modified)"));
  EXPECT_THAT(feedback, ::testing::Not(HasSubstr("__pycache__")));
}

TEST_F(EvidenceEndToEnd, EchoingTheVerifyCommandIsNoRunOfIt) {
  agent.push(write_add(k_fixed_add));
  agent.push(tool_turn("shell", {{"command", "echo 'would run: sh test.sh'"}}));
  agent.push(text_turn("Done.\n<promise>DONE</promise>"));

  const auto out = run({"--verifier-first", "--verify-cmd", "sh test.sh", "--max-iterations", "1"});

  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto verdicts = parse_output(out)["verdicts"];
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[0]["result"], "pass") << "the fix is right";
  EXPECT_EQ(verdicts[1]["verifier"], "evidence");
  EXPECT_EQ(verdicts[1]["category"], "no_evidence") << "the echo only mentions the check";
}

TEST_F(EvidenceEndToEnd, ACatAfterAFailingTestIsNoEvidence) {
  agent.push(tool_turn("shell", {{"command", "sh test.sh"}}));
  agent.push(tool_turn("shell", {{"command", "cat add.sh"}}));
  agent.push(text_turn("Done.\n<promise>DONE</promise>"));

  const auto out = run({"--verifier-first", "--max-iterations", "1"});

  EXPECT_EQ(out.exit_code, 3) << out.err;
  const auto verdict = parse_output(out)["verdicts"][0];
  EXPECT_EQ(verdict["category"], "test_failed") << verdict["feedback"];
  EXPECT_EQ(verdict["evidence"]["command"], "sh test.sh") << "the check taken as evidence";
}

TEST_F(EvidenceEndToEnd, EvidenceCommandsFromTheConfigurationSayWhatCounts) {
  workspace.write(".ralph/config.toml", "[evidence]\ncommands = [\"sh test.sh\"]\n");
  workspace.write("add.sh", k_fixed_add);
  workspace.write("check.sh", "exit 0\n");
  agent.push(tool_turn("shell", {{"command", "sh check.sh"}}));
  agent.push(text_turn("Done.\n<promise>DONE</promise>"));
  agent.push(tool_turn("shell", {{"command", "sh test.sh"}}));
  agent.push(text_turn("Done.\n<promise>DONE</promise>"));

  const auto out = run({"--verifier-first", "--max-iterations", "2"});

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto verdicts = parse_output(out)["verdicts"];
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[0]["category"], "no_evidence") << "`sh check.sh` is not in the list";
  EXPECT_THAT(verdicts[1]["feedback"].get<std::string>(),
              HasSubstr("taken as evidence: matches the evidence.commands pattern `sh test.sh`"));
}

} // namespace
} // namespace ralph::testing
