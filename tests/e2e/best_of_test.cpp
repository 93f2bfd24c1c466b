// `ralph run --parallel-attempts N` end to end: the real binary, N attempts at once against the
// fake provider server (each attempt's answers chosen by what it sent), real verifier commands,
// real git repositories in temp dirs.
#include "e2e_support.h"
#include "fake_agent_cli.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <poll.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using json = nlohmann::json;
namespace fs = std::filesystem;

// add.sh multiplies: `sh test.sh` fails.
constexpr const char* k_wrong_add = "add() { echo $(($1 * $2)); }\n";
// add.sh adds, with a comment: passes, one line more than k_fixed_add.
constexpr const char* k_commented_add = "# adds its two arguments\nadd() { echo $(($1 + $2)); }\n";

// Plays one script per attempt: an attempt's first request (the goal alone) takes the next
// script; its later requests are told apart by the tool call ids its earlier turns carried
// ("s<script>-<turn>"), so concurrent attempts each follow their own script. `before` runs
// before a turn is answered (script, turn).
class Scripts {
public:
  Scripts(FakeProviderServer& server, std::vector<std::vector<FakeTurn>> scripts)
      : m_server(server), m_scripts(std::move(scripts)) {
    server.set_responder([this](const RecordedRequest& request) { return answer(request); });
  }
  ~Scripts() { m_server.set_responder({}); }
  Scripts(const Scripts&) = delete;
  Scripts& operator=(const Scripts&) = delete;

  std::function<void(std::size_t, std::size_t)> before;

private:
  std::optional<FakeTurn> answer(const RecordedRequest& request) {
    const json body = json::parse(request.body, nullptr, false);
    std::size_t script = 0;
    std::size_t turn = 0;
    std::string last_id;
    for (const json& message : body.value("messages", json::array())) {
      if (message.value("role", "") == "tool") {
        last_id = message.value("tool_call_id", "");
      }
    }
    if (last_id.empty()) {
      script = m_next++;
    } else {
      const std::size_t dash = last_id.find('-');
      script = std::stoul(last_id.substr(1, dash - 1));
      turn = std::stoul(last_id.substr(dash + 1)) + 1;
    }
    if (script >= m_scripts.size() || turn >= m_scripts[script].size()) {
      return text_turn("no script left");
    }
    if (before) {
      before(script, turn);
    }
    FakeTurn out = m_scripts[script][turn];
    for (ToolCall& call : out.tool_calls) {
      call.id = "s" + std::to_string(script) + "-" + std::to_string(turn);
    }
    return out;
  }

  FakeProviderServer& m_server;
  std::vector<std::vector<FakeTurn>> m_scripts;
  std::atomic<std::size_t> m_next{0};
};

class BestOf : public ::testing::Test {
protected:
  BestOf() {
    workspace.write("test.sh", k_test_script);
    workspace.write("add.sh", k_broken_add);
  }

  void make_repo() { git("init -q -b main && git add -A && git commit -qm base"); }
  // A git command line in the workspace; its output, trimmed.
  std::string git(const std::string& line) {
    const std::string command =
        "cd '" + workspace.path().string() + "' && GIT_CONFIG_GLOBAL=/dev/null git " + line;
    std::string out;
    FILE* pipe = popen(command.c_str(), "r");
    char buffer[4096];
    for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
      out.append(buffer, n);
    }
    EXPECT_EQ(pclose(pipe), 0) << line;
    while (!out.empty() && out.back() == '\n') {
      out.pop_back();
    }
    return out;
  }
  std::map<std::string, std::string> env() const {
    return {{"GIT_CONFIG_GLOBAL", "/dev/null"},
            {"GIT_AUTHOR_NAME", "Tess"},
            {"GIT_AUTHOR_EMAIL", "tess@example.com"},
            {"GIT_COMMITTER_NAME", "Tess"},
            {"GIT_COMMITTER_EMAIL", "tess@example.com"}};
  }
  RalphOutput best_of(int n, std::vector<std::string> extra = {}) {
    return run_ralph(best_of_args(n, std::move(extra)), cwd.path(), env());
  }
  std::vector<std::string> best_of_args(int n, std::vector<std::string> extra = {},
                                        bool json_result = true) {
    std::vector<std::string> args{"run",
                                  "--model",
                                  "openai-compat/test-model",
                                  "--base-url",
                                  server.base_url() + "/v1",
                                  "--workspace",
                                  workspace.path().string(),
                                  "--verify-cmd",
                                  "sh test.sh",
                                  "--max-iterations",
                                  "1",
                                  "--parallel-attempts",
                                  std::to_string(n)};
    if (json_result) {
      args.push_back("--json");
    }
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("make the test pass");
    return args;
  }
  // The attempt of `result` whose workspace holds add.sh as `content`.
  static json attempt_with(const json& result, const std::string& content) {
    for (const json& candidate : result["candidates"]) {
      if (slurp(fs::path(candidate["workspace"].get<std::string>()) / "add.sh") == content) {
        return candidate;
      }
    }
    ADD_FAILURE() << "no attempt with add.sh = " << content << " in " << result.dump();
    return json::object();
  }
  static std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }

  FakeProviderServer server;
  TempDir workspace;
  TempDir cwd;
};

TEST_F(BestOf, TheOnlyPassingAttemptIsCommittedAndTheOthersAreKeptWithTheirDiffs) {
  make_repo();
  const std::string base = git("rev-parse HEAD");
  Scripts scripts(server, {{write_add(k_fixed_add), text_turn("Fixed add.")},
                           {write_add(k_wrong_add), text_turn("Changed add.")},
                           {text_turn("Nothing to change.")}});

  const RalphOutput out = best_of(3);

  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const json result = parse_output(out);
  const json fixed = attempt_with(result, k_fixed_add);
  EXPECT_EQ(result["winner"], fixed["index"]);
  EXPECT_EQ(result["why"], "only one passed");
  EXPECT_EQ(result["applied"], true);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["answer"], "Fixed add.");
  EXPECT_EQ(fixed["changed_lines"], 2);
  EXPECT_EQ(fixed["verified"], true);

  // Applied as one commit on main, on top of where the user was, with a message that says so.
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
  EXPECT_EQ(git("rev-parse HEAD"), result["commit"].get<std::string>());
  EXPECT_EQ(git("rev-parse HEAD~1"), base);
  EXPECT_EQ(git("branch --show-current"), "main");
  const std::string message = git("log -1 --format=%B");
  EXPECT_THAT(message, StartsWith("make the test pass"));
  EXPECT_THAT(message, HasSubstr("best of 3"));
  EXPECT_THAT(message, HasSubstr(result["session_id"].get<std::string>()));
  EXPECT_EQ(git("log -1 --format=%an"), "Tess");
  EXPECT_EQ(git("status --porcelain -- . ':!.ralph'"), "");

  // Every attempt kept: its workspace, its branch with its work, its diff.
  for (const json& candidate : result["candidates"]) {
    const std::string k = std::to_string(candidate["index"].get<int>());
    EXPECT_EQ(candidate["branch"],
              "ralph/attempts/" + result["session_id"].get<std::string>() + "/" + k);
    EXPECT_TRUE(fs::is_directory(candidate["workspace"].get<std::string>()));
    EXPECT_TRUE(fs::exists(candidate["diff"].get<std::string>()));
    EXPECT_NE(git("rev-parse --verify " + candidate["branch"].get<std::string>()), "");
  }
  const json wrong = attempt_with(result, k_wrong_add);
  EXPECT_EQ(wrong["status"], "budget_exhausted");
  EXPECT_EQ(wrong["verified"], false);
  EXPECT_THAT(slurp(wrong["diff"].get<std::string>()), HasSubstr("+add() { echo $(($1 * $2)); }"));
  const json idle = attempt_with(result, k_broken_add);
  EXPECT_EQ(idle["changed_lines"], 0);
  EXPECT_EQ(slurp(idle["diff"].get<std::string>()), "");

  // Each attempt is a session of its own, under the best-of-N session.
  const json parent = show_session(result["session_id"], workspace.path());
  EXPECT_EQ(parent["kind"], "best_of");
  EXPECT_EQ(parent["status"], "completed");
  EXPECT_THAT(parent["reason"].get<std::string>(), HasSubstr("only one passed"));
  ASSERT_EQ(parent["candidates"].size(), 3u);
  const RalphOutput resumed =
      run_ralph({"sessions", "resume", result["session_id"], "--yes"}, workspace.path());
  EXPECT_EQ(resumed.exit_code, 2);
  EXPECT_THAT(resumed.err, HasSubstr("is a best-of-N run: resume one of its attempts"));
  const RalphOutput shown_parent =
      run_ralph({"sessions", "show", result["session_id"]}, workspace.path());
  EXPECT_THAT(shown_parent.out, HasSubstr("\ncandidates:\n  "));
  EXPECT_THAT(shown_parent.out, HasSubstr(fixed["session_id"].get<std::string>()));
  for (const json& candidate : result["candidates"]) {
    const json shown = show_session(candidate["session_id"], workspace.path());
    EXPECT_EQ(shown["kind"], "run");
    EXPECT_EQ(shown["parent_id"], result["session_id"]);
    EXPECT_EQ(shown["workspace"], candidate["workspace"]);
    EXPECT_THAT(run_ralph({"sessions", "show", candidate["session_id"]}, workspace.path()).out,
                HasSubstr("kind:      run of best-of-N session " +
                          result["session_id"].get<std::string>()));
  }
}

TEST_F(BestOf, AmongPassingAttemptsFewerChangedLinesWin) {
  make_repo();
  Scripts scripts(server, {{write_add(k_commented_add), text_turn("Fixed, with a comment.")},
                           {write_add(k_fixed_add), text_turn("Fixed.")}});

  TempDir records;
  records.write("events.ndjson", "an earlier run's line\n");
  const fs::path events = records.path() / "events.ndjson";
  const RalphOutput out =
      best_of(2, {"--events", events.string(), "--out", (records.path() / "out").string()});

  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const json result = parse_output(out);
  EXPECT_EQ(result["winner"], attempt_with(result, k_fixed_add)["index"]);
  EXPECT_EQ(result["why"], "fewer changed lines: 2 vs 3");
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
  // One events file for both attempts (replaced, not appended to), each line with its session;
  // trace files per attempt.
  const std::string lines = slurp(events);
  EXPECT_THAT(lines, Not(HasSubstr("an earlier run's line")));
  for (const json& candidate : result["candidates"]) {
    EXPECT_THAT(lines, HasSubstr("\"session\":\"" + candidate["session_id"].get<std::string>()));
    EXPECT_TRUE(fs::exists(records.path() / "out" / std::to_string(candidate["index"].get<int>()) /
                           "session-index.json"));
  }
}

TEST_F(BestOf, TheEventsSayWhichAttemptWonAndWhy) {
  make_repo();
  Scripts scripts(server, {{write_add(k_commented_add), text_turn("Fixed, with a comment.")},
                           {write_add(k_fixed_add), text_turn("Fixed.")}});
  TempDir records;
  const fs::path events = records.path() / "events.ndjson";

  const RalphOutput out = best_of(2, {"--events", events.string()});

  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const json result = parse_output(out);
  std::vector<json> ranked;
  std::istringstream lines(slurp(events));
  std::string last;
  for (std::string line; std::getline(lines, line); last = line) {
    if (json event = json::parse(line); event["type"] == "attempts_ranked") {
      ranked.push_back(std::move(event));
    }
  }
  ASSERT_EQ(ranked.size(), 1u) << slurp(events);
  // After every attempt's own events: whoever follows the file reads the outcome last.
  EXPECT_EQ(json::parse(last)["type"], "attempts_ranked");
  const json& decided = ranked.front();
  EXPECT_EQ(decided["session"], result["session_id"]);
  EXPECT_EQ(decided["winner"], result["winner"]);
  EXPECT_EQ(decided["winner_session"], attempt_with(result, k_fixed_add)["session_id"]);
  EXPECT_EQ(decided["why"], "fewer changed lines: 2 vs 3");
  EXPECT_EQ(decided["applied"], true);
}

TEST_F(BestOf, AmongEqualChangesTheLowerCostWins) {
  make_repo();
  TempDir config;
  config.write("config.toml",
               "[prices.\"openai-compat/test-model\"]\ninput = 1000\noutput = 1000\n");
  // The second spends a turn more (and its tokens) on the same change.
  Scripts scripts(server, {{tool_turn("shell", {{"command", "cat test.sh add.sh"}}),
                            write_add(k_fixed_add), text_turn("Fixed after a look.")},
                           {write_add(k_fixed_add), text_turn("Fixed.")}});

  const RalphOutput out = best_of(2, {"--config", (config.path() / "config.toml").string()});

  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const json result = parse_output(out);
  EXPECT_EQ(result["answer"], "Fixed.");
  EXPECT_THAT(result["why"].get<std::string>(), StartsWith("lower cost: $"));
  for (const json& candidate : result["candidates"]) {
    EXPECT_EQ(candidate["changed_lines"], 2);
    EXPECT_TRUE(candidate["cost_usd"].is_number());
  }
}

TEST_F(BestOf, AWinnerThatChangedNothingLeavesTheBranchAloneAndATieGoesToTheLowerIndex) {
  workspace.write("add.sh", k_fixed_add);
  make_repo();
  const std::string head = git("rev-parse HEAD");
  Scripts scripts(server, {{text_turn("It already adds.")}, {text_turn("It already adds.")}});

  const RalphOutput out = best_of(2);

  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const json result = parse_output(out);
  EXPECT_EQ(result["winner"], 1);
  EXPECT_EQ(result["why"], "a tie on every measure: the lower index");
  EXPECT_EQ(result["unchanged"], true);
  EXPECT_TRUE(result["commit"].is_null()) << result["commit"];
  EXPECT_EQ(git("rev-parse HEAD"), head);
}

TEST_F(BestOf, WhenNonePassesNothingIsAppliedAndTheBestStatusIsTheExitCode) {
  make_repo();
  const std::string head = git("rev-parse HEAD");
  Scripts scripts(
      server, {{write_add(k_wrong_add), text_turn("Changed add.")}, {text_turn("I could not.")}});

  const RalphOutput out = best_of(2);

  EXPECT_EQ(out.exit_code, 3) << out.err << out.out;
  const json result = parse_output(out);
  EXPECT_TRUE(result["winner"].is_null());
  EXPECT_EQ(result["applied"], false);
  EXPECT_EQ(result["status"], "budget_exhausted");
  // Both failed their one verdict; the one that changed nothing is closest.
  EXPECT_EQ(result["why"], "none passed; ranked first by fewer changed lines: 0 vs 2");
  EXPECT_EQ(result["best"], attempt_with(result, k_broken_add)["index"]);
  EXPECT_EQ(git("rev-parse HEAD"), head);
  EXPECT_EQ(workspace.read("add.sh"), k_broken_add);
}

TEST_F(BestOf, OutsideGitTheWinnersFilesAreCopiedOver) {
  workspace.write("obsolete.txt", "remove me\n");
  Scripts scripts(
      server,
      {{write_add(k_wrong_add), text_turn("Changed add.")},
       {write_add(k_fixed_add),
        tool_turn("write_file", {{"path", "notes/why.txt"}, {"content", "plus, not minus\n"}}),
        tool_turn("shell", {{"command", "rm obsolete.txt"}}), text_turn("Fixed add.")}});

  const RalphOutput out = best_of(2);

  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const json result = parse_output(out);
  EXPECT_EQ(result["applied"], true);
  EXPECT_TRUE(result["commit"].is_null()) << result["commit"];
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
  EXPECT_EQ(workspace.read("notes/why.txt"), "plus, not minus\n");
  EXPECT_FALSE(fs::exists(workspace.path() / "obsolete.txt"));
  const json winner = attempt_with(result, k_fixed_add);
  EXPECT_EQ(winner["changed_lines"], 4); // -1 +1 in add.sh, +1 why.txt, -1 obsolete.txt
  EXPECT_EQ(winner["branch"], "");
}

TEST_F(BestOf, AWorkspaceChangedWhereTheWinnerWorkedIsRefusedAndNothingApplied) {
  make_repo();
  const std::string head = git("rev-parse HEAD");
  Scripts scripts(server, {{write_add(k_fixed_add), text_turn("Fixed add.")},
                           {text_turn("Nothing to change.")}});
  // While the attempts run, the user edits add.sh in the workspace.
  scripts.before = [&](std::size_t script, std::size_t turn) {
    if (script == 0 && turn == 1) {
      workspace.write("add.sh", "add() { echo 5; }\n");
    }
  };

  const RalphOutput out = best_of(2);

  EXPECT_EQ(out.exit_code, 2) << out.err << out.out;
  const json result = parse_output(out);
  EXPECT_EQ(result["applied"], false);
  EXPECT_THAT(result["error"].get<std::string>(), HasSubstr("add.sh"));
  EXPECT_THAT(out.err, HasSubstr("not applied"));
  EXPECT_EQ(git("rev-parse HEAD"), head);
  EXPECT_EQ(workspace.read("add.sh"), "add() { echo 5; }\n");
  const json winner = attempt_with(result, k_fixed_add);
  EXPECT_EQ(result["winner"], winner["index"]);
  EXPECT_TRUE(fs::exists(winner["diff"].get<std::string>()));
}

TEST_F(BestOf, AnExternalAgentWorksInEachAttemptsOwnWorkspace) {
  make_repo();
  TempDir home;
  FakeAgentCli cli(home);
  cli.script({FakeRun().write("add.sh", k_fixed_add).say("Fixed add."),
              FakeRun().say("Nothing to change.")});
  std::map<std::string, std::string> environment = cli.env_map();
  for (const auto& [key, value] : env()) {
    environment[key] = value;
  }

  const RalphOutput out =
      run_ralph({"run", "--agent", "gemini", "--workspace", workspace.path().string(),
                 "--verify-cmd", "sh test.sh", "--max-iterations", "1", "--parallel-attempts", "2",
                 "--json", "make the test pass"},
                cwd.path(), environment);

  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const json result = parse_output(out);
  EXPECT_EQ(result["applied"], true);
  EXPECT_EQ(result["answer"], "Fixed add.");
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
  const auto calls = cli.invocations();
  ASSERT_EQ(calls.size(), 2u);
  std::vector<std::string> cwds{calls[0]["cwd"], calls[1]["cwd"]};
  std::vector<std::string> workspaces{result["candidates"][0]["workspace"],
                                      result["candidates"][1]["workspace"]};
  std::sort(cwds.begin(), cwds.end());
  std::sort(workspaces.begin(), workspaces.end());
  EXPECT_EQ(cwds, workspaces);
}

TEST_F(BestOf, APersonSeesWhoWonWhyAndEveryAttempt) {
  make_repo();
  Scripts scripts(server, {{write_add(k_fixed_add), text_turn("Fixed add.")},
                           {text_turn("Nothing to change.")}});

  const RalphOutput out = run_ralph(best_of_args(2, {}, false), cwd.path(), env());

  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const std::string commit = git("rev-parse HEAD").substr(0, 12);
  EXPECT_THAT(out.out, StartsWith("Fixed add.\n"));
  EXPECT_THAT(out.out, HasSubstr(" won (only one passed) · applied as commit " + commit + "\n"));
  EXPECT_THAT(out.out, ::testing::ContainsRegex("completed +yes +\\+1 -1 "));
  EXPECT_THAT(out.out, ::testing::ContainsRegex("budget_exhausted +no 0/1 +\\+0 -0 "));
  // Progress: each attempt's lines tagged with its number.
  EXPECT_THAT(out.err, HasSubstr("[1] attempt 1 started"));
  EXPECT_THAT(out.err, HasSubstr("[2] attempt 1 started"));
  EXPECT_THAT(out.err, HasSubstr("[1] verdict of "));
}

TEST_F(BestOf, CtrlCStopsEveryAttemptAndAppliesNothing) {
  make_repo();
  const std::string head = git("rev-parse HEAD");
  HeldAnswers held(server, "Never delivered.");
  RalphProcess ralph(best_of_args(2), cwd.path(), env());
  ASSERT_TRUE(server.wait_for_requests(2, std::chrono::seconds(30)));
  ralph.signal(SIGINT);
  const RalphOutput out = ralph.wait();
  held.release();

  EXPECT_EQ(out.exit_code, 130) << out.err;
  const json result = parse_output(out);
  EXPECT_EQ(result["status"], "interrupted");
  EXPECT_EQ(result["applied"], false);
  for (const json& candidate : result["candidates"]) {
    EXPECT_EQ(candidate["status"], "interrupted");
    EXPECT_TRUE(fs::exists(candidate["diff"].get<std::string>()));
  }
  EXPECT_EQ(git("rev-parse HEAD"), head);
  EXPECT_EQ(workspace.read("add.sh"), k_broken_add);
}

TEST_F(BestOf, CtrlCWhileTheWorktreesAreMadeIsAnInterruptionAndNothingRuns) {
  make_repo();
  // A git that holds `worktree add` until it is killed, saying first that it got there.
  TempDir bin;
  const fs::path real_git = [] {
    const char* path = std::getenv("PATH");
    std::string dirs = path == nullptr ? "/usr/bin" : path;
    for (std::size_t start = 0; start <= dirs.size();) {
      const std::size_t end = std::min(dirs.find(':', start), dirs.size());
      const fs::path candidate = fs::path(dirs.substr(start, end - start)) / "git";
      if (::access(candidate.c_str(), X_OK) == 0) {
        return candidate;
      }
      start = end + 1;
    }
    return fs::path("/usr/bin/git");
  }();
  // The wrapper says it got there through a FIFO the test waits on.
  const fs::path reached = bin.path() / "reached";
  ASSERT_EQ(::mkfifo(reached.c_str(), 0600), 0);
  const int reached_fd = ::open(reached.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reached_fd, 0);
  bin.write("git", "#!/bin/sh\ncase \" $* \" in *' worktree add '*) echo > '" + reached.string() +
                       "'; exec sleep 600 ;; esac\nexec '" + real_git.string() + "' \"$@\"\n");
  fs::permissions(bin.path() / "git", fs::perms::owner_all);
  auto environment = env();
  environment["PATH"] = bin.path().string() + ":" + std::getenv("PATH");
  RalphProcess ralph(best_of_args(2), cwd.path(), environment);
  pollfd wait{reached_fd, POLLIN, 0};
  const int ready = ::poll(&wait, 1, 30'000);
  ::close(reached_fd);
  ASSERT_EQ(ready, 1) << "git worktree add was never reached";
  ralph.signal(SIGINT);
  const RalphOutput out = ralph.wait();
  EXPECT_EQ(out.exit_code, 130) << out.err;
  EXPECT_THAT(out.err, HasSubstr("interrupted while making the attempts' workspaces"));
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(BestOf, AnAgentThatCannotBeMadeIsOneErrorBeforeAnyWorktree) {
  make_repo();
  const RalphOutput out = best_of(2, {"--agent", "clippy"});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_THAT(out.err, HasSubstr("unknown agent 'clippy'"));
  EXPECT_EQ(git("branch --list 'ralph/*'"), "");
  EXPECT_EQ(git("worktree list --porcelain").find("attempts"), std::string::npos);
}

TEST_F(BestOf, BadCountsAreUsageErrors) {
  for (const std::string bad : {"0", "17", "two", "-1", "2x"}) {
    const RalphOutput out = run_ralph({"run", "--parallel-attempts", bad, "fix it"}, cwd.path());
    EXPECT_EQ(out.exit_code, 2) << bad;
    EXPECT_THAT(out.err, HasSubstr("--parallel-attempts '" + bad +
                                   "': expected a whole number from 1 to 16"))
        << out.err;
  }
  EXPECT_TRUE(server.requests().empty());
}

} // namespace
} // namespace ralph::testing
