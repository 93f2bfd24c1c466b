// Sessions end to end: every run recorded in .ralph/ralph.db, `kill -9` at several points of an
// attempt, `ralph sessions resume` carrying the record and the budgets on to `completed`, and
// the other `sessions` commands and trace files.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

FakeTurn stalled(FakeTurn turn) {
  turn.fault = Fault::slow_first_byte;
  turn.first_byte_delay = std::chrono::seconds(600);
  return turn;
}

class SessionEndToEnd : public ::testing::Test {
protected:
  SessionEndToEnd() { workspace.write("test.sh", k_test_script); }

  std::vector<std::string> run_args(std::vector<std::string> extra) const {
    std::vector<std::string> all{
        "run",        "make add.sh add",         "--model",     "openai-compat/agent-model",
        "--base-url", agent->base_url() + "/v1", "--workspace", workspace.path().string(),
        "--json"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  RalphOutput ralph(std::vector<std::string> args) const {
    return run_ralph(std::move(args), workspace.path());
  }
  json show(const std::string& id) const { return show_session(id, workspace.path()); }
  std::string only_session_id() const {
    const auto out = ralph({"sessions", "list", "--json"});
    EXPECT_EQ(out.exit_code, 0) << out.err;
    const auto list = json::parse(out.out);
    EXPECT_EQ(list.size(), 1u);
    return list.empty() ? std::string() : list[0]["id"].get<std::string>();
  }
  // Kills ralph with SIGKILL once `ready` holds: nothing of its own shutdown runs.
  template <typename Ready> void run_and_kill(std::vector<std::string> args, Ready ready) {
    RalphProcess process(std::move(args), workspace.path());
    ASSERT_TRUE(eventually(ready));
    process.signal(SIGKILL);
    EXPECT_EQ(process.wait().exit_code, 128 + SIGKILL);
  }
  RalphOutput resume(const std::string& id, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args{"sessions", "resume", id, "--yes", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return ralph(std::move(args));
  }
  static std::int64_t tokens_of(const json& usage) {
    return usage["input_tokens"].get<std::int64_t>() + usage["output_tokens"].get<std::int64_t>();
  }
  // Every model call the record holds, summed.
  static std::int64_t recorded_tokens(const json& record) {
    std::int64_t total = 0;
    for (const auto& call : record["model_calls"]) {
      total += tokens_of(call["usage"]);
    }
    return total;
  }

  std::unique_ptr<FakeProviderServer> agent = std::make_unique<FakeProviderServer>();
  TempDir workspace;
};

TEST_F(SessionEndToEnd, ARunIsRecordedAndShownWithEveryAttemptVerdictAndFeedback) {
  agent->push(write_add(k_broken_add));
  agent->push(text_turn("Done."));
  agent->push(write_add(k_fixed_add));
  agent->push(text_turn("Fixed."));
  const auto out = ralph(run_args({"--verify-cmd", "sh test.sh"}));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string id = json::parse(out.out)["session_id"];

  const auto list = ralph({"sessions", "list"});
  EXPECT_THAT(list.out, HasSubstr(id));
  EXPECT_THAT(list.out, HasSubstr("completed"));
  EXPECT_THAT(list.out, HasSubstr("make add.sh add"));

  const auto text = ralph({"sessions", "show", id.substr(0, 20)}); // a unique prefix will do
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("── attempt 1"));
  EXPECT_THAT(text.out, HasSubstr("write_file path=add.sh"));
  EXPECT_THAT(text.out, HasSubstr("command: sh test.sh · fail test_failed"));
  EXPECT_THAT(text.out, HasSubstr("FAIL: test_add"));
  EXPECT_THAT(text.out, HasSubstr("↩ feedback:"));
  EXPECT_THAT(text.out, HasSubstr("── attempt 2"));

  const auto record = show(id);
  EXPECT_EQ(record["status"], "completed");
  ASSERT_EQ(record["attempts"].size(), 2u);
  EXPECT_EQ(record["attempts"][0]["verdicts"][0]["evidence"]["exit_code"], 1);
  EXPECT_THAT(record["attempts"][0]["verdicts"][0]["output"].get<std::string>(),
              HasSubstr("FAIL: test_add"));
  EXPECT_EQ(record["attempts"][0]["tool_calls"][0]["name"], "write_file");
  EXPECT_EQ(record["config"]["verify.commands"][0], "sh test.sh");
  EXPECT_EQ(recorded_tokens(record), tokens_of(record["usage"]));
  EXPECT_EQ(record["verified"], true);
}

TEST_F(SessionEndToEnd, TheListTakesAStatusAKindAndALimit) {
  agent->push(text_turn("Done."));
  const auto failed = ralph(run_args({"--verify-cmd", "false", "--max-iterations", "1"}));
  ASSERT_EQ(failed.exit_code, 3) << failed.err;
  agent->push(text_turn("Done."));
  const auto passed = ralph(run_args({"--verify-cmd", "true"}));
  ASSERT_EQ(passed.exit_code, 0) << passed.err;
  const std::string exhausted_id = json::parse(failed.out)["session_id"];
  const std::string verified_id = json::parse(passed.out)["session_id"];
  const auto listed = [&](std::vector<std::string> flags) {
    std::vector<std::string> args{"sessions", "list", "--json"};
    args.insert(args.end(), flags.begin(), flags.end());
    const auto out = ralph(args);
    EXPECT_EQ(out.exit_code, 0) << out.err;
    std::vector<std::string> ids;
    for (const json& row : json::parse(out.out)) {
      ids.push_back(row["id"]);
    }
    return ids;
  };

  EXPECT_EQ(listed({"--status", "budget_exhausted"}), std::vector<std::string>{exhausted_id});
  EXPECT_EQ(listed({"--status", "verified"}), std::vector<std::string>{verified_id});
  EXPECT_EQ(listed({"--status", "failed,budget_exhausted"}),
            std::vector<std::string>{exhausted_id});
  EXPECT_EQ(listed({"--limit", "1"}), std::vector<std::string>{verified_id}) << "the newest";
  EXPECT_EQ(listed({"--kind", "run", "--status", "completed"}),
            std::vector<std::string>{verified_id});
  EXPECT_TRUE(listed({"--kind", "chat"}).empty());
  EXPECT_THAT(ralph({"sessions", "list", "--kind", "chat"}).out,
              HasSubstr("none of the 2 sessions recorded here is of the status or kind asked for"));

  const auto bad_status = ralph({"sessions", "list", "--status", "verifed"});
  EXPECT_EQ(bad_status.exit_code, 2);
  EXPECT_EQ(bad_status.err,
            "ralph sessions list: --status 'verifed': expected one of active, completed, "
            "budget_exhausted, stalled, blocked, interrupted, failed, stopped, verified\n");
  const auto bad_kind = ralph({"sessions", "list", "--kind", "batch"});
  EXPECT_EQ(bad_kind.exit_code, 2);
  EXPECT_EQ(bad_kind.err, "ralph sessions list: --kind 'batch': expected one of run, chat, goal, "
                          "heartbeat, best_of\n");
  const auto bad_limit = ralph({"sessions", "list", "--limit", "0"});
  EXPECT_EQ(bad_limit.exit_code, 2);
  EXPECT_EQ(bad_limit.err,
            "ralph sessions list: --limit '0': expected a whole number, 1 or more\n");
}

TEST_F(SessionEndToEnd, TheRecordKeepsItselfOutOfGitButNotTheConfiguration) {
  workspace.write(".ralph/config.toml", "[agent]\nmax_steps = 5\n");
  agent->push(text_turn("Done."));
  ASSERT_EQ(ralph(run_args({})).exit_code, 0);
  ASSERT_EQ(std::system(("cd " + workspace.path().string() +
                         " && git init -q . && git add -A && git status --porcelain > status.txt")
                            .c_str()),
            0);
  const std::string status = workspace.read("status.txt");
  EXPECT_THAT(status, HasSubstr(".ralph/config.toml"));
  EXPECT_THAT(status, Not(HasSubstr(".ralph/.gitignore")));
  EXPECT_THAT(status, Not(HasSubstr("ralph.db")));

  // A .gitignore of the user's own is theirs.
  workspace.write(".ralph/.gitignore", "mine\n");
  agent->push(text_turn("Done."));
  ASSERT_EQ(ralph(run_args({})).exit_code, 0);
  EXPECT_EQ(workspace.read(".ralph/.gitignore"), "mine\n");
}

TEST_F(SessionEndToEnd, AfterOneRunWithoutAConfigurationGitShowsNothingOfTheRecord) {
  ASSERT_EQ(std::system(("cd " + workspace.path().string() +
                         " && git init -q . && git add -A && git -c user.email=t@t "
                         "-c user.name=t commit -qm first")
                            .c_str()),
            0);
  // The ignore file an earlier version wrote (it did not ignore itself) is replaced.
  workspace.write(".ralph/.gitignore",
                  "# Written by ralph: sessions hold whole conversations; keep them out of git.\n"
                  "*\n!.gitignore\n!config.toml\n");
  agent->push(text_turn("Done."));
  ASSERT_EQ(ralph(run_args({})).exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(workspace.path() / ".ralph" / "ralph.db"));
  ASSERT_EQ(std::system(("cd " + workspace.path().string() +
                         " && git status --porcelain --untracked-files=all > .git/status.txt")
                            .c_str()),
            0);
  EXPECT_EQ(workspace.read(".git/status.txt"), "");
}

TEST_F(SessionEndToEnd, KilledBeforeTheModelAnswersResumesAtThatAttemptWithBudgetsCarriedOn) {
  agent->push(write_add(k_broken_add));
  agent->push(text_turn("Done."));
  agent->push(stalled(text_turn("never sent")));
  run_and_kill(run_args({"--verify-cmd", "sh test.sh"}),
               [&] { return agent->requests().size() == 3; });
  const std::string id = only_session_id();
  const auto before = show(id);
  EXPECT_EQ(before["status"], "stopped") << "recorded active, but its process is gone";
  ASSERT_EQ(before["attempts"].size(), 2u);
  EXPECT_TRUE(before["attempts"][0]["finished"]) << "attempt 1 ended before the kill";
  EXPECT_FALSE(before["attempts"][1]["finished"]);
  const std::int64_t spent_before = tokens_of(before["usage"]);
  EXPECT_GT(spent_before, 0);

  agent = std::make_unique<FakeProviderServer>(); // a new server: the model moved
  agent->push(write_add(k_fixed_add));
  agent->push(text_turn("Fixed the operator."));
  const auto out = resume(id, {"--base-url", agent->base_url() + "/v1"});

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = json::parse(out.out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["session_id"], id);
  EXPECT_EQ(result["iterations"], 2) << "attempt 2 ran again from its start, not a third";
  EXPECT_EQ(result["verdicts"][0]["result"], "fail") << "attempt 1's verdict is kept";
  EXPECT_GT(tokens_of(result["usage"]), spent_before) << "the first run's tokens still count";
  // The resumed attempt 2 started from attempt 1's feedback.
  const auto first_request = json::parse(agent->requests().at(0).body);
  EXPECT_THAT(first_request["messages"].back()["content"].get<std::string>(),
              HasSubstr("FAIL: test_add"));
  const auto after = show(id);
  EXPECT_EQ(after["status"], "completed");
  EXPECT_EQ(recorded_tokens(after), tokens_of(after["usage"]));
  EXPECT_EQ(tokens_of(after["usage"]), tokens_of(result["usage"]));
}

TEST_F(SessionEndToEnd, AKilledSessionIsShownStoppedAndStillResumes) {
  agent->push(stalled(text_turn("never sent")));
  {
    RalphProcess process(run_args({}), workspace.path());
    ASSERT_TRUE(eventually([&] { return agent->requests().size() == 1; }));
    // While its process waits for the model, the session is active.
    const auto running = json::parse(ralph({"sessions", "list", "--json"}).out);
    ASSERT_EQ(running.size(), 1u);
    EXPECT_EQ(running[0]["status"], "active");
    process.signal(SIGKILL);
    EXPECT_EQ(process.wait().exit_code, 128 + SIGKILL);
  }
  const std::string id = only_session_id();
  const auto list = ralph({"sessions", "list"});
  EXPECT_THAT(list.out, HasSubstr(" stopped "));
  EXPECT_THAT(list.out, Not(HasSubstr("active")));
  EXPECT_EQ(json::parse(ralph({"sessions", "list", "--json"}).out)[0]["status"], "stopped");
  EXPECT_THAT(ralph({"sessions", "show", id}).out, HasSubstr(id + " · stopped"));
  EXPECT_EQ(show(id)["status"], "stopped");

  agent->push(text_turn("Done."));
  const auto out = resume(id);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(json::parse(out.out)["status"], "completed");
  EXPECT_EQ(show(id)["status"], "completed");
}

TEST_F(SessionEndToEnd, KilledDuringAToolCallResumesAtTheStartOfThatAttempt) {
  agent->push(tool_turn("shell", {{"command", "echo $$ > sleeper.pid; exec sleep 600"}}));
  run_and_kill(run_args({"--verify-cmd", "sh test.sh"}),
               [&] { return workspace.read("sleeper.pid").find('\n') != std::string::npos; });
  // The command ralph started outlives a SIGKILL of ralph itself; stop it here.
  ::kill(std::stoi(workspace.read("sleeper.pid")), SIGKILL);
  const std::string id = only_session_id();
  const auto before = show(id);
  ASSERT_EQ(before["attempts"].size(), 1u);
  EXPECT_FALSE(before["attempts"][0]["finished"]);
  EXPECT_EQ(before["model_calls"].size(), 1u) << "the model call before the tool was recorded";

  agent->push(write_add(k_fixed_add));
  agent->push(text_turn("Wrote add.sh."));
  const auto out = resume(id);

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = json::parse(out.out);
  EXPECT_EQ(result["iterations"], 1);
  EXPECT_EQ(result["status"], "completed");
  // The restarted attempt saw only the goal, as the first time.
  const auto restarted = json::parse(agent->requests().at(1).body)["messages"];
  EXPECT_EQ(restarted.back()["content"], "make add.sh add");
  EXPECT_EQ(show(id)["model_calls"].size(), 3u) << "the killed run's call and two new ones";
}

TEST_F(SessionEndToEnd, AResumedAttemptCountsTheToolCallsItListsAndShowsTheStoppedRunsApart) {
  // The killed run makes one tool call that ends, then one that never does.
  agent->push(tool_turn("shell", {{"command", "echo first > first.txt"}}));
  agent->push(tool_turn("shell", {{"command", "echo $$ > sleeper.pid; exec sleep 600"}}));
  run_and_kill(run_args({"--verify-cmd", "sh test.sh"}),
               [&] { return workspace.read("sleeper.pid").find('\n') != std::string::npos; });
  ::kill(std::stoi(workspace.read("sleeper.pid")), SIGKILL);
  const std::string id = only_session_id();

  agent->push(write_add(k_fixed_add));
  agent->push(text_turn("Wrote add.sh."));
  ASSERT_EQ(resume(id).exit_code, 0);

  const auto shown = ralph({"sessions", "show", id});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, HasSubstr(" · 1 tool call · ")) << shown.out;
  EXPECT_THAT(shown.out,
              HasSubstr("  before the resume, a run of this attempt that was stopped "
                        "made 1 tool call:\n    → shell echo first > first.txt · exit 0\n"))
      << shown.out;
  EXPECT_THAT(shown.out, HasSubstr("\n  → write_file")) << shown.out;
  const json record = show(id);
  const json& calls = record["attempts"][0]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  int stopped = 0;
  for (const json& call : calls) {
    stopped += call.value("stopped_run", false) ? 1 : 0;
  }
  EXPECT_EQ(stopped, 1);
  EXPECT_EQ(record["attempts"][0]["tool_call_count"], 1);
}

TEST_F(SessionEndToEnd, KilledDuringVerificationResumesAndVerifiesAgain) {
  // The verify command hangs the first time it runs, and passes after.
  workspace.write("verify.sh", "if [ ! -f once ]; then touch once; echo $$ > verifier.pid; exec "
                               "sleep 600; fi\nsh test.sh\n");
  agent->push(write_add(k_fixed_add));
  agent->push(text_turn("Done."));
  run_and_kill(run_args({"--verify-cmd", "sh verify.sh"}),
               [&] { return workspace.read("verifier.pid").find('\n') != std::string::npos; });
  ::kill(std::stoi(workspace.read("verifier.pid")), SIGKILL);
  const std::string id = only_session_id();
  EXPECT_FALSE(show(id)["attempts"][0]["finished"]);

  agent->push(write_add(k_fixed_add));
  agent->push(text_turn("Done."));
  const auto out = resume(id);

  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = json::parse(out.out);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["verdicts"].size(), 1u);
  EXPECT_EQ(result["verdicts"][0]["result"], "pass");
}

TEST_F(SessionEndToEnd, ExhaustedSessionResumesOnlyWithARaisedBudget) {
  for (int i = 0; i < 2; ++i) {
    agent->push(write_add(k_broken_add));
    agent->push(text_turn("Done."));
  }
  const auto first = ralph(run_args({"--verify-cmd", "sh test.sh", "--max-iterations", "2"}));
  ASSERT_EQ(first.exit_code, 3) << first.err;
  const std::string id = json::parse(first.out)["session_id"];

  const auto refused = resume(id);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("--max-iterations"));
  const auto still_refused = resume(id, {"--max-iterations", "2"});
  EXPECT_EQ(still_refused.exit_code, 2);
  EXPECT_THAT(still_refused.err, HasSubstr("--max-iterations 3"));

  agent->push(write_add(k_fixed_add));
  agent->push(text_turn("Fixed."));
  const auto out = resume(id, {"--max-iterations", "3"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(json::parse(out.out)["iterations"], 3);
  // The third attempt was told why the second failed.
  const auto request = json::parse(agent->requests().at(4).body)["messages"];
  EXPECT_THAT(request.back()["content"].get<std::string>(), HasSubstr("FAIL: test_add"));
}

TEST_F(SessionEndToEnd, CompletedSessionIsNotResumedAndResumeAsksFirst) {
  agent->push(text_turn("Done."));
  const auto done = ralph(run_args({}));
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const std::string id = json::parse(done.out)["session_id"];
  const auto refused = resume(id);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("already completed"));

  agent->push(stalled(text_turn("never")));
  run_and_kill(run_args({}), [&] { return agent->requests().size() == 2; });
  const auto list = json::parse(ralph({"sessions", "list", "--json"}).out);
  const std::string killed = list[0]["id"];
  // Without --yes it asks; stdin here answers nothing, so it does not resume.
  const auto asked = ralph({"sessions", "resume", killed});
  EXPECT_EQ(asked.exit_code, 2);
  EXPECT_THAT(asked.err, HasSubstr("Resume session " + killed));
  EXPECT_THAT(asked.err, HasSubstr("not resumed"));
  EXPECT_EQ(agent->requests().size(), 2u);
}

TEST_F(SessionEndToEnd, TraceFilesAfterEachAttemptAndOnExport) {
  agent->push(write_add(k_broken_add));
  agent->push(text_turn("Done."));
  agent->push(write_add(k_fixed_add));
  agent->push(text_turn("Fixed."));
  TempDir out_dir;
  const auto out =
      ralph(run_args({"--verify-cmd", "sh test.sh", "--out", out_dir.path().string()}));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string id = json::parse(out.out)["session_id"];

  const auto index = json::parse(out_dir.read("session-index.json"));
  EXPECT_EQ(index["version"], 1);
  ASSERT_EQ(index["sessions"].size(), 1u);
  EXPECT_EQ(index["sessions"][0]["id"], id);
  ASSERT_EQ(index["sessions"][0]["iterations"].size(), 2u);
  const std::string second_path = index["sessions"][0]["iterations"][1]["path"];
  EXPECT_EQ(second_path, "sessions/" + id + "/iter-02.json");
  const auto trace = json::parse(out_dir.read(second_path));
  EXPECT_EQ(trace["iteration"], 2);
  EXPECT_EQ(trace["verdicts"][0]["result"], "pass");
  EXPECT_EQ(json::parse(out_dir.read("iter-01.json"))["verdicts"][0]["result"], "fail");

  TempDir exported;
  const auto written = ralph({"sessions", "export", id, "--out", exported.path().string()});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_THAT(written.out, HasSubstr("wrote 2 trace file(s)"));
  EXPECT_EQ(json::parse(exported.read("sessions/" + id + "/iter-01.json")),
            json::parse(out_dir.read("sessions/" + id + "/iter-01.json")));
}

TEST_F(SessionEndToEnd, RemoveAndPrune) {
  agent->push(text_turn("one"));
  agent->push(text_turn("two"));
  const std::string first = json::parse(ralph(run_args({})).out)["session_id"];
  const std::string second = json::parse(ralph(run_args({})).out)["session_id"];
  const auto removed = ralph({"sessions", "rm", first});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(ralph({"sessions", "show", first}).exit_code, 2);
  EXPECT_EQ(ralph({"sessions", "prune", "--older-than", "30d"}).exit_code, 0);
  EXPECT_EQ(ralph({"sessions", "show", second}).exit_code, 0) << "younger than 30 days";
  const auto pruned = ralph({"sessions", "prune", "--older-than", "0s"});
  EXPECT_THAT(pruned.out, HasSubstr("removed 1 session(s)"));
  EXPECT_EQ(ralph({"sessions", "show", second}).exit_code, 2);
  EXPECT_EQ(ralph({"sessions", "prune", "--older-than", "soon"}).exit_code, 2);
}

TEST_F(SessionEndToEnd, SecretsNeverReachTheRecordOrTheTraces) {
  const std::string token = "ghp_0123456789abcdefSECRET";
  agent->push(tool_turn("shell", {{"command", "echo token=$GITHUB_TOKEN"}}));
  agent->push(text_turn("The token is " + token));
  TempDir out_dir;
  const auto out = run_ralph(run_args({"--out", out_dir.path().string()}), workspace.path(),
                             {{"GITHUB_TOKEN", token}});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string id = json::parse(out.out)["session_id"];
  const auto record = ralph({"sessions", "show", id, "--json"}).out;
  EXPECT_THAT(record, Not(HasSubstr(token)));
  EXPECT_THAT(record, HasSubstr("[REDACTED]"));
  EXPECT_THAT(workspace.read(".ralph/ralph.db"), Not(HasSubstr(token)));
  EXPECT_THAT(workspace.read(".ralph/ralph.db-wal"), Not(HasSubstr(token)));
  EXPECT_THAT(out_dir.read("sessions/" + id + "/iter-01.json"), Not(HasSubstr(token)));
}

// JSON escapes a quote and a backslash: redaction on the encoded text would miss this secret.
TEST_F(SessionEndToEnd, ASecretWithAQuoteAndABackslashNeverReachesTheRecord) {
  const std::string secret = R"(pa"ss\word-42)";
  const std::string escaped = R"(pa\"ss\\word-42)";
  agent->push(tool_turn("write_file", {{"path", "note.txt"}, {"content", secret}}));
  agent->push(text_turn("The password is " + secret));
  const auto out = run_ralph(run_args({}), workspace.path(), {{"SERVICE_PASSWORD", secret}});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string id = json::parse(out.out)["session_id"];
  const auto record = ralph({"sessions", "show", id, "--json"}).out;
  EXPECT_THAT(record, HasSubstr("[REDACTED]"));
  for (const std::string& form : {secret, escaped}) {
    EXPECT_THAT(out.out, Not(HasSubstr(form)));
    EXPECT_THAT(record, Not(HasSubstr(form)));
    EXPECT_THAT(workspace.read(".ralph/ralph.db"), Not(HasSubstr(form)));
    EXPECT_THAT(workspace.read(".ralph/ralph.db-wal"), Not(HasSubstr(form)));
  }
}

// A secret written into --verify-cmd (not through a variable) names the verifier: the record,
// the traces, an export and every output show it masked.
TEST_F(SessionEndToEnd, ALiteralSecretInTheVerifyCommandIsNeverRecordedOrShown) {
  const std::string secret = "vfy-7a6b5c4d3e2f";
  agent->push(write_add(k_fixed_add));
  agent->push(tool_turn("shell", {{"command", "echo " + secret}}));
  agent->push(text_turn("Fixed; the deploy token is " + secret));
  TempDir out_dir;
  const auto out =
      run_ralph(run_args({"--verify-cmd", "sh test.sh && test " + secret + " = " + secret, "--out",
                          out_dir.path().string()}),
                workspace.path(), {{"DEPLOY_TOKEN", secret}});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto result = json::parse(out.out);
  const std::string id = result["session_id"];
  EXPECT_THAT(result["verdicts"][0]["verifier"].get<std::string>(), HasSubstr("[REDACTED]"));
  const auto record = show(id);
  EXPECT_THAT(record.dump(), HasSubstr("[REDACTED]"));
  TempDir exported;
  ASSERT_EQ(ralph({"sessions", "export", id, "--out", exported.path().string()}).exit_code, 0);
  EXPECT_THAT(out.out, Not(HasSubstr(secret)));
  EXPECT_THAT(out.err, Not(HasSubstr(secret)));
  EXPECT_THAT(record.dump(), Not(HasSubstr(secret)));
  EXPECT_THAT(ralph({"sessions", "show", id}).out, Not(HasSubstr(secret)));
  EXPECT_THAT(out_dir.read("sessions/" + id + "/iter-01.json"), Not(HasSubstr(secret)));
  EXPECT_THAT(exported.read("sessions/" + id + "/iter-01.json"), Not(HasSubstr(secret)));
  EXPECT_THAT(workspace.read(".ralph/ralph.db"), Not(HasSubstr(secret)));
  EXPECT_THAT(workspace.read(".ralph/ralph.db-wal"), Not(HasSubstr(secret)));
}

TEST_F(SessionEndToEnd, TwoRunsAtOnceShareTheWorkspaceDatabase) {
  // Two processes started together, each with its own server; the store's own tests prove
  // concurrent writers with forked processes, this shows the CLI opens a shared database right.
  FakeProviderServer other;
  for (FakeProviderServer* server : {agent.get(), &other}) {
    server->push(tool_turn("list_dir", json::object()));
    server->push(text_turn("Done."));
  }
  RalphProcess one(run_args({}), workspace.path());
  std::vector<std::string> second = run_args({});
  second[5] = other.base_url() + "/v1";
  RalphProcess two(second, workspace.path());
  const auto first_out = one.wait();
  const auto second_out = two.wait();
  ASSERT_EQ(first_out.exit_code, 0) << first_out.err;
  ASSERT_EQ(second_out.exit_code, 0) << second_out.err;
  const auto list = json::parse(ralph({"sessions", "list", "--json"}).out);
  ASSERT_EQ(list.size(), 2u);
  for (const auto& session : list) {
    EXPECT_EQ(session["status"], "completed");
    EXPECT_EQ(show(session["id"])["model_calls"].size(), 2u);
  }
}

TEST_F(SessionEndToEnd, NoStoreLeavesNoDatabase) {
  agent->push(text_turn("Done."));
  ASSERT_EQ(ralph(run_args({"--no-store"})).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(workspace.path() / ".ralph" / "ralph.db"));
}

} // namespace
} // namespace ralph::testing
