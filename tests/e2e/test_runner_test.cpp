// Real test runners behind `--verify-cmd`, end to end: node --test, bats, prove, mocha (pinned in
// tests/test_runners/package.json, `make test-runners`) and rspec run a suite of four tests in the
// workspace, the failing ones listed in a file the agent rewrites each attempt, and ralph's binary
// must read their counts, the failing tests' names and the progress from what they print. A
// missing runner skips its test, or fails it when RALPH_REQUIRE_AGENT_CLIS=1 (CI), which requires
// every outside program the end-to-end tests drive.
#include "agent_cli_env.h"
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using json = nlohmann::json;

// Where `make test-runners` installs the npm runners: $RALPH_TEST_RUNNERS_DIR, else the source
// tree's tests/test_runners/node_modules/.bin.
std::filesystem::path npm_runners_dir() {
  const char* dir = std::getenv("RALPH_TEST_RUNNERS_DIR");
  return dir != nullptr && *dir != '\0'
             ? std::filesystem::path(dir)
             : std::filesystem::path(RALPH_SOURCE_DIR "/tests/test_runners/node_modules/.bin");
}

// One runner: its suite (four tests, "case 1" to "case 4"; those listed in the workspace's file
// `failing` fail) and how ralph should name it and its tests.
struct RunnerCase {
  std::string test_name;
  std::string program; // looked up on $PATH, or in npm_runners_dir() when `npm`
  bool npm = false;
  std::vector<std::pair<std::string, std::string>> files;
  std::string arguments;  // after the program, in the verify command
  std::string runner;     // as ralph names it
  std::string test_names; // fmt-like: "{}" is the case number
};

// gtest prints a parameter with PrintTo; without it ctest's listing shows the struct's bytes.
void PrintTo(const RunnerCase& runner, std::ostream* out) {
  *out << runner.test_name;
}

std::string named(const std::string& pattern, int n) {
  std::string out = pattern;
  out.replace(out.find("{}"), 2, std::to_string(n));
  return out;
}

// The JavaScript suite node --test and mocha both run (node's needs its `describe` and `it`
// required first).
std::string js_suite() {
  return "const assert = require('node:assert');\n"
         "const fail = require('node:fs').readFileSync('failing', 'utf8').trim().split(',');\n"
         "describe('suite', () => {\n"
         "  for (const i of [1, 2, 3, 4]) {\n"
         "    it(`case ${i}`, () => assert.ok(!fail.includes(String(i)), 'wrong'));\n"
         "  }\n"
         "});\n";
}

std::vector<RunnerCase> runner_cases() {
  return {
      {.test_name = "NodeTest",
       .program = "node",
       .files = {{"suite.test.js",
                  "const { describe, it } = require('node:test');\n" + js_suite()}},
       .arguments = "--test",
       .runner = "node --test",
       .test_names = "suite > case {}"},
      {.test_name = "Bats",
       .program = "bats",
       .files = {{"suite.bats", "fails() { [[ \",$(cat failing),\" == *\",$1,\"* ]]; }\n"
                                "@test \"case 1\" { ! fails 1; }\n"
                                "@test \"case 2\" { ! fails 2; }\n"
                                "@test \"case 3\" { ! fails 3; }\n"
                                "@test \"case 4\" { ! fails 4; }\n"}},
       .arguments = "suite.bats",
       .runner = "TAP",
       .test_names = "case {}"},
      {.test_name = "Prove",
       .program = "prove",
       .files = {{"t/suite.t",
                  "use strict; use warnings; use Test::More tests => 4;\n"
                  "open my $f, '<', 'failing' or die;\n"
                  "my %fail = map { $_ => 1 } split /[,\\s]+/, do { local $/; <$f> };\n"
                  "ok(!$fail{$_}, \"case $_\") for 1..4;\n"}},
       .runner = "prove",
       .test_names = "t/suite.t #{}"},
      {.test_name = "Mocha",
       .program = "mocha",
       .npm = true,
       .files = {{"test/suite.js", js_suite()}},
       .runner = "mocha",
       .test_names = "suite > case {}"},
      {.test_name = "Rspec",
       .program = "rspec",
       .files =
           {{"spec/suite_spec.rb",
             "FAIL = File.read('failing').strip.split(',')\n"
             "RSpec.describe 'suite' do\n"
             "  (1..4).each { |i| it(\"case #{i}\") { expect(FAIL).not_to include(i.to_s) } }\n"
             "end\n"}},
       .runner = "rspec",
       .test_names = "suite case {}"},
  };
}

class RealTestRunner : public ::testing::TestWithParam<RunnerCase> {
protected:
  void SetUp() override {
    const RunnerCase& c = GetParam();
    const auto found = c.npm ? std::optional(npm_runners_dir() / c.program) : on_path(c.program);
    if (found && ::access(found->c_str(), X_OK) == 0) {
      m_program = *found;
      return;
    }
    const std::string why =
        c.npm ? c.program + " is not installed in " + npm_runners_dir().string() +
                    " (run `make test-runners`, or set RALPH_TEST_RUNNERS_DIR)"
              : c.program + " is not on the PATH (scripts/install-deps.sh installs it)";
    if (agent_clis_required()) {
      FAIL() << why << "; RALPH_REQUIRE_AGENT_CLIS=1 makes this an error";
    }
    GTEST_SKIP() << why;
  }

  std::string verify_command() const {
    std::string command = "'" + m_program.string() + "'";
    if (!GetParam().arguments.empty()) {
      command += " " + GetParam().arguments;
    }
    return command;
  }

  // The failing tests, as ralph names them.
  std::vector<std::string> names(const std::vector<int>& cases) const {
    std::vector<std::string> out;
    for (const int n : cases) {
      out.push_back(named(GetParam().test_names, n));
    }
    return out;
  }

  FakeProviderServer agent;
  TempDir workspace;
  TempDir cwd;

private:
  std::filesystem::path m_program;
};

TEST_P(RealTestRunner, FailingTestsAndProgressAreReadFromTheRealRunner) {
  const RunnerCase& c = GetParam();
  for (const auto& [path, content] : c.files) {
    workspace.write(path, content);
  }
  workspace.write("failing", "1,2,3\n");
  // Each attempt after the first fixes one more test.
  agent.push(text_turn("Done."));
  for (const char* failing : {"2,3", "3", "none"}) {
    agent.push(tool_turn("write_file", {{"path", "failing"}, {"content", failing}}));
    agent.push(text_turn("Fixed one more."));
  }

  const auto out =
      run_ralph({"run", "make the tests pass", "--model", "openai-compat/agent-model", "--base-url",
                 agent.base_url() + "/v1", "--workspace", workspace.path().string(), "--json",
                 "--verify-cmd", verify_command(), "--max-iterations", "4"},
                cwd.path());

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json result = parse_output(out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["iterations"], 4);
  const std::string of = " of 4 (" + c.runner + ")";
  EXPECT_THAT(out.err, HasSubstr("failing: 3" + of));
  EXPECT_THAT(out.err, HasSubstr("failing: 3 → 2" + of));
  EXPECT_THAT(out.err, HasSubstr("failing: 2 → 1" + of));
  EXPECT_THAT(out.err, HasSubstr("failing: 1 → 0" + of));
  // The third attempt's first request carries what the second one's tests did.
  const std::string feedback =
      json::parse(agent.requests().at(3).body)["messages"].back()["content"];
  EXPECT_THAT(feedback, HasSubstr("failing tests: 3 → 2" + of));

  const json record = show_session(result["session_id"], workspace.path());
  ASSERT_EQ(record["attempts"].size(), 4u);
  const auto failing = [&](int attempt) {
    return record["attempts"][attempt]["verdicts"][0]["evidence"]["tests"]["failing"]
        .get<std::vector<std::string>>();
  };
  EXPECT_THAT(failing(0), ElementsAreArray(names({1, 2, 3})));
  EXPECT_THAT(failing(1), ElementsAreArray(names({2, 3})));
  EXPECT_THAT(failing(2), ElementsAreArray(names({3})));
  EXPECT_TRUE(failing(3).empty());
}

INSTANTIATE_TEST_SUITE_P(Runners, RealTestRunner, ::testing::ValuesIn(runner_cases()),
                         [](const auto& runner_info) { return runner_info.param.test_name; });

} // namespace
} // namespace ralph::testing
