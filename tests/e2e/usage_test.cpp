// Mistyped command lines end to end: the real binary, one line on stderr naming the mistake and
// the help to read, exit code 2 (README "Exit codes"), and nothing run or recorded.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using json = nlohmann::json;

class UsageEndToEnd : public ::testing::Test {
protected:
  // Runs ralph in the workspace and expects a usage error: exit 2, nothing on stdout, no record.
  std::string usage_error(const std::vector<std::string>& args) const {
    const auto out = run_ralph(args, workspace.path());
    EXPECT_EQ(out.exit_code, 2) << out.err;
    EXPECT_EQ(out.out, "");
    EXPECT_FALSE(std::filesystem::exists(workspace.path() / ".ralph"));
    return out.err;
  }
  std::vector<std::string> run_args(std::vector<std::string> extra) const {
    std::vector<std::string> all{"run", "--model", "openai-compat/agent-model", "--base-url",
                                 server.base_url() + "/v1"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }

  FakeProviderServer server;
  TempDir workspace;
};

TEST_F(UsageEndToEnd, UnknownCommandsAreNamedWithTheClosestOne) {
  EXPECT_EQ(usage_error({"rn", "x"}),
            "ralph: unknown command 'rn'; did you mean 'run'? See 'ralph --help'.\n");
  EXPECT_EQ(usage_error({"session", "list"}),
            "ralph: unknown command 'session'; did you mean 'sessions'? See 'ralph --help'.\n");
  EXPECT_EQ(usage_error({"sessions", "lst"}), "ralph sessions: unknown command 'lst'; did you "
                                              "mean 'list'? See 'ralph sessions --help'.\n");
}

TEST_F(UsageEndToEnd, ServeSaysWhatIsWrongWithItsPort) {
  EXPECT_EQ(usage_error({"serve", "--port", "70000"}),
            "ralph serve: --port: Value 70000 not in range 0 to 65535. See 'ralph serve "
            "--help'.\n");
}

TEST_F(UsageEndToEnd, WorkerWithoutAQueueSaysSo) {
  EXPECT_EQ(usage_error({"worker"}),
            "ralph worker: --queue is required. See 'ralph worker --help'.\n");
}

TEST_F(UsageEndToEnd, UnknownOptionIsNamedInItsCommandWithTheClosestOne) {
  EXPECT_EQ(usage_error({"run", "--modle", "openai/gpt-4.1", "fix the test"}),
            "ralph run: unknown option '--modle'; did you mean '--model'? See 'ralph run "
            "--help'.\n");
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(UsageEndToEnd, EveryCommandNamesItsUnknownOptions) {
  struct Case {
    std::string command; // as the message names it
    std::vector<std::string> args;
  };
  const std::vector<Case> cases{
      {"ralph run", {"run", "goal"}},
      {"ralph qa", {"qa", "--doc", "d", "--query", "q"}},
      {"ralph task", {"task", "--doc", "d", "--query", "q"}},
      {"ralph demo", {"demo"}},
      {"ralph sessions", {"sessions"}},
      {"ralph sessions list", {"sessions", "list"}},
      {"ralph sessions show", {"sessions", "show", "id"}},
      {"ralph sessions resume", {"sessions", "resume", "id"}},
      {"ralph sessions export", {"sessions", "export", "id", "--out", "o"}},
      {"ralph sessions rm", {"sessions", "rm", "id"}},
      {"ralph sessions prune", {"sessions", "prune", "--older-than", "1d"}}};
  for (const auto& [command, args] : cases) {
    std::vector<std::string> typo = args;
    typo.emplace_back("--hlep");
    EXPECT_EQ(usage_error(typo), command +
                                     ": unknown option '--hlep'; did you mean '--help'? See '" +
                                     command + " --help'.\n");
  }
}

TEST_F(UsageEndToEnd, ExtraArgumentsAreNamedPlainly) {
  EXPECT_EQ(usage_error(run_args({"fix", "the", "test"})),
            "ralph run: unexpected argument 'the' (the goal is one argument: put it in quotes). "
            "See 'ralph run --help'.\n");
  EXPECT_EQ(usage_error({"sessions", "list", "everything"}),
            "ralph sessions list: unexpected argument 'everything'. See 'ralph sessions list "
            "--help'.\n");
}

TEST_F(UsageEndToEnd, BadDurationOrCountSaysTheAcceptedForms) {
  EXPECT_EQ(usage_error(run_args({"go", "--time-budget", "10x"})),
            "ralph run: --time-budget '10x': expected a duration like 90s, 1.5m, 2h (0: no "
            "limit)\n");
  EXPECT_EQ(usage_error(run_args({"go", "--token-budget", "lots"})),
            "ralph run: --token-budget 'lots': expected a count like 4096, 200k, 1.5k, 2M (0: no "
            "limit)\n");
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(UsageEndToEnd, DurationsAndCountsTheHelpPromisesAreAccepted) {
  server.push(text_turn("Done."));
  const auto out = run_ralph(run_args({"go", "--json", "--time-budget", "1.5m", "--token-budget",
                                       "200k", "--max-tokens", "1.5k"}),
                             workspace.path());
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string id = json::parse(out.out)["session_id"];
  const auto config = show_session(id, workspace.path())["config"];
  EXPECT_EQ(config["budget.max_time"], 90);
  EXPECT_EQ(config["budget.max_tokens"], 200000);
  EXPECT_EQ(config["agent.max_tokens"], 1500);
}

TEST_F(UsageEndToEnd, AnEmptyGoalOrQueryIsAUsageError) {
  EXPECT_EQ(usage_error(run_args({""})),
            "ralph run: the goal is empty; say what to do, in words. See 'ralph run --help'.\n");
  EXPECT_EQ(usage_error(run_args({"  \n"})),
            "ralph run: the goal is empty; say what to do, in words. See 'ralph run --help'.\n");
  workspace.write("doc.txt", "text");
  EXPECT_EQ(usage_error({"qa", "--doc", "doc.txt", "--query", " "}),
            "ralph qa: --query is empty; ask a question or give a task. See 'ralph qa --help'.\n");
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(UsageEndToEnd, AnEmptyPathGlobOrCommandIsAUsageError) {
  EXPECT_EQ(usage_error(run_args({"go", "--junit", ""})),
            "ralph run: --junit '': expected a list of non-empty strings\n");
  EXPECT_EQ(usage_error(run_args({"go", "--verify-cmd", "make test", "--verify-cmd", " "})),
            "ralph run: --verify-cmd ' ': expected a list of non-empty strings\n");
  EXPECT_EQ(usage_error(run_args({"go", "--protect", ""})),
            "ralph run: --protect '': expected a list of non-empty strings\n");
  for (const char* path : {"--events", "--out", "--config", "--workspace"}) {
    EXPECT_EQ(usage_error(run_args({"go", path, ""})),
              fmt::format("ralph run: {}: an empty value names nothing. See 'ralph run --help'.\n",
                          path));
  }
  EXPECT_EQ(usage_error({"qa", "--doc", "", "--query", "q"}),
            "ralph qa: --doc: an empty value names nothing. See 'ralph qa --help'.\n");
  EXPECT_EQ(usage_error({"sessions", "export", "id", "--out", ""}),
            "ralph sessions export: --out: an empty value names nothing. See 'ralph sessions "
            "export --help'.\n");
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(UsageEndToEnd, AnEmptyGlobInAConfigurationFileIsAConfigurationError) {
  TempDir elsewhere;
  elsewhere.write("extra.toml", "[verify]\njunit = [\"build/*.xml\", \"\"]\n");
  const std::string err =
      usage_error(run_args({"go", "--config", (elsewhere.path() / "extra.toml").string()}));
  EXPECT_THAT(err, ::testing::HasSubstr("verify.junit: expected a list of non-empty strings, got "
                                        "an empty one"));
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(UsageEndToEnd, AMistypedRalphVariableIsAConfigurationError) {
  const auto out = run_ralph(run_args({"go"}), workspace.path(), {{"RALPH_MAX_ITERATIONS", "1"}});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.err, "ralph: error: environment variable RALPH_MAX_ITERATIONS: not a setting of "
                     "ralph; did you mean RALPH_LOOP_MAX_ITERATIONS?\n");
  EXPECT_EQ(out.out, "");
  EXPECT_TRUE(server.requests().empty());
}

// The "Exit codes:" line of a command's --help.
std::string exit_codes_of(const std::vector<std::string>& command) {
  TempDir cwd;
  std::vector<std::string> args = command;
  args.emplace_back("--help");
  const auto out = run_ralph(args, cwd.path());
  EXPECT_EQ(out.exit_code, 0) << out.err;
  const std::size_t at = out.out.find("Exit codes:");
  if (at == std::string::npos) {
    ADD_FAILURE() << "no exit codes in the help of " << command.front() << ":\n" << out.out;
    return {};
  }
  return out.out.substr(at);
}

TEST(HelpEndToEnd, EachCommandListsOnlyTheExitCodesItCanReturn) {
  const std::string run_codes = "0 completed, 1 failed, 2 usage or configuration error, 3 budget "
                                "exhausted, 4 blocked, 5 stalled, 130 interrupted.";
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"run"}, {"qa"}, {"task"}, {"demo"}, {"sessions", "resume"}}) {
    EXPECT_THAT(exit_codes_of(command), ::testing::HasSubstr(run_codes)) << command.back();
  }
  // They record, list or read; no run ends in them.
  for (const std::vector<std::string>& command : {std::vector<std::string>{"sessions", "list"},
                                                  {"sessions", "show"},
                                                  {"sessions", "export"},
                                                  {"sessions", "rm"},
                                                  {"sessions", "prune"},
                                                  {"sessions", "copy"},
                                                  {"batch", "status"},
                                                  {"batch", "export"},
                                                  {"chat"}}) {
    const std::string codes = exit_codes_of(command);
    EXPECT_THAT(codes, ::testing::StartsWith("Exit codes: 0 ")) << command.back();
    for (const char* never : {"3 ", "4 blocked", "5 stalled", "every goal"}) {
      EXPECT_THAT(codes, ::testing::Not(::testing::HasSubstr(never))) << command.back();
    }
  }
  EXPECT_THAT(exit_codes_of({"chat"}), ::testing::HasSubstr("130 ended by SIGTERM"));
}

} // namespace
} // namespace ralph::testing
