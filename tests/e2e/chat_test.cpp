// `ralph chat` through the real binary against the fake provider server: scripted through a pipe
// (one line per turn), and typed into a pseudo-terminal as a person would.
#include "e2e_support.h"
#include "fake_agent_cli.h"
#include "support/temp_dir.h"
#include "terminal_screen.h"

#include "ralph/store/sqlite_session_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <future>
#include <memory>
#include <regex>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

constexpr const char* k_marker = "<promise>DONE</promise>";

class ChatTest : public ::testing::Test {
protected:
  ChatTest() {
    workspace.write("test.sh", k_test_script);
    workspace.write("add.sh", k_broken_add);
  }

  std::vector<std::string> args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> all{"chat", "--model", "openai-compat/agent-model", "--base-url",
                                 server.base_url() + "/v1"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  std::map<std::string, std::string> env() const {
    return {{"XDG_STATE_HOME", state.path().string()}};
  }
  RalphOutput script(const std::string& input, std::vector<std::string> extra = {}) const {
    return run_ralph_with_input(args(std::move(extra)), workspace.path(), input, env());
  }
  // The chat session's id, from the line that says how to resume it.
  static std::string chat_id(const std::string& err) {
    std::smatch match;
    const bool found = std::regex_search(err, match, std::regex("--resume ([0-9a-zA-Z_-]+)"));
    EXPECT_TRUE(found) << err;
    return found ? match[1].str() : std::string();
  }
  // The messages of the agent's request `n` as JSON text.
  std::string request(std::size_t n) const {
    const auto requests = server.requests();
    EXPECT_GT(requests.size(), n);
    return requests.size() > n ? json::parse(requests[n].body)["messages"].dump() : "";
  }

  FakeProviderServer server;
  TempDir workspace;
  TempDir state;
};

TEST_F(ChatTest, OrdinaryTurnsAreAnsweredOnceUnverifiedAndRemembered) {
  server.push(text_turn("Hello! What shall we do?"));
  server.push(text_turn("add.sh subtracts."));
  const RalphOutput out = script("hello there\nwhat is wrong with add.sh?\n");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("Hello! What shall we do?"));
  EXPECT_THAT(out.out, HasSubstr("add.sh subtracts."));
  EXPECT_THAT(out.err, Not(HasSubstr("not verified")));
  // The second turn is said in the same conversation.
  EXPECT_THAT(request(1), HasSubstr("hello there"));
  EXPECT_THAT(request(1), HasSubstr("Hello! What shall we do?"));
  const json shown = show_session(chat_id(out.err), workspace.path());
  EXPECT_EQ(shown["kind"], "chat");
  EXPECT_EQ(shown["goal"], "hello there");
  ASSERT_EQ(shown["attempts"].size(), 2U);
  EXPECT_EQ(shown["attempts"][1]["answer"], "add.sh subtracts.");
  EXPECT_EQ(shown["attempts"][1]["verified"], false);
  // The second turn's record holds what started it, not the whole chat again.
  auto store = store::SqliteSessionStore::open(workspace.path() / ".ralph" / "ralph.db");
  ASSERT_TRUE(store.has_value()) << store.error().message;
  const auto record = (*store)->load(chat_id(out.err));
  ASSERT_TRUE(record && *record);
  const auto started = json::parse((**record).attempts.at(1).start_json);
  ASSERT_EQ(started.size(), 1U) << started.dump();
  EXPECT_EQ(started[0]["content"], "what is wrong with add.sh?");
}

TEST_F(ChatTest, AGoalClaimedEarlyFailsItsVerifyCommandAndCompletesOnTheNextAttempt) {
  server.push(text_turn(std::string("All fixed.\n") + k_marker));
  server.push(write_add(k_fixed_add));
  server.push(tool_turn("shell", {{"command", "sh test.sh"}}));
  server.push(text_turn(std::string("Fixed add.sh; sh test.sh passes.\n") + k_marker));
  server.push(text_turn("You're welcome."));
  const RalphOutput out =
      script("/verify sh test.sh\n/goal make sh test.sh pass\n/status\nthanks\n");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
  EXPECT_THAT(out.err, HasSubstr("verifier added for the next goal: command: sh test.sh"));
  EXPECT_THAT(out.err, HasSubstr("FAIL: test_add"));
  EXPECT_THAT(out.err, HasSubstr("goal completed"));
  // /status after the goal: how it ended and its last verdicts.
  EXPECT_THAT(out.out, HasSubstr("goal: make sh test.sh pass"));
  EXPECT_THAT(out.out, HasSubstr("state: completed"));
  EXPECT_THAT(out.out, HasSubstr("✓ command: sh test.sh pass"));
  // The seed's template opened the goal; the retry started from a compact continuation prompt.
  EXPECT_THAT(request(0), HasSubstr("Plan -> Act -> Verify -> Reflect -> Retry"));
  EXPECT_THAT(request(0), HasSubstr("sh test.sh"));
  EXPECT_THAT(request(1), HasSubstr("FAIL: test_add"));
  EXPECT_THAT(request(1), Not(HasSubstr(R"("role":"assistant")")));
  // The chat goes on after the goal, knowing how it ended.
  EXPECT_THAT(request(4), HasSubstr("Fixed add.sh; sh test.sh passes."));
  EXPECT_THAT(out.out, HasSubstr("You're welcome."));
  // The goal is a session of its own under the chat.
  const std::string id = chat_id(out.err);
  const RalphOutput listed = run_ralph({"sessions", "list", "--json"}, workspace.path());
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  std::string goal_id;
  for (const json& session : json::parse(listed.out)) {
    if (session.value("kind", "") == "goal") {
      goal_id = session["id"];
      EXPECT_EQ(session["parent_id"], id);
    }
  }
  ASSERT_FALSE(goal_id.empty()) << listed.out;
  const json goal = show_session(goal_id, workspace.path());
  EXPECT_EQ(goal["status"], "completed");
  EXPECT_EQ(goal["verified"], true);
  EXPECT_EQ(goal["attempts"].size(), 2U);
  // The chat shows its turns and its goals.
  const json shown = show_session(id, workspace.path());
  ASSERT_EQ(shown["goals"].size(), 1U);
  EXPECT_EQ(shown["goals"][0]["id"], goal_id);
  EXPECT_EQ(shown["attempts"].size(), 1U) << "one ordinary turn";
  const RalphOutput text = run_ralph({"sessions", "show", id}, workspace.path());
  EXPECT_THAT(text.out, HasSubstr("── turn 1"));
  EXPECT_THAT(text.out, HasSubstr(goal_id + " · completed · verified · 2 attempts"));
  // A chat goes on as a chat, and a goal is no chat.
  const RalphOutput resumed = run_ralph({"sessions", "resume", id, "--yes"}, workspace.path());
  EXPECT_EQ(resumed.exit_code, 2);
  EXPECT_THAT(resumed.err, HasSubstr("is a chat: go on with it with ralph chat --resume " + id));
  const RalphOutput not_a_chat = script("", {"--resume", goal_id});
  EXPECT_EQ(not_a_chat.exit_code, 2);
  EXPECT_THAT(not_a_chat.err, HasSubstr("--resume " + goal_id + ": a goal session, not a chat"));
}

TEST_F(ChatTest, AGoalOutOfAttemptsEndsWithTheNoticeAndTheChatGoesOn) {
  server.push(text_turn(std::string("Done.\n") + k_marker));
  server.push(text_turn("Still here."));
  const RalphOutput out = script("/budget iterations=1\n/goal make sh test.sh pass\nstill there?\n",
                                 {"--verify-cmd", "sh test.sh"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.err, HasSubstr("budgets: iterations 1"));
  EXPECT_THAT(out.out, HasSubstr("ralph stopped after 1 attempt before every verifier passed."));
  EXPECT_THAT(out.err, HasSubstr("goal budget_exhausted"));
  EXPECT_THAT(out.out, HasSubstr("Still here."));
}

TEST_F(ChatTest, EveryAnswerOfAGoalIsVerifiedWhateverTheTrigger) {
  // A workspace that verifies only answers with a keyword: a goal's claim is verified anyway.
  workspace.write(".ralph/config.toml", "[loop]\ntrigger = \"keywords\"\n");
  server.push(text_turn("All fixed."));
  const RalphOutput out =
      script("/budget iterations=1\n/goal make sh test.sh pass\n", {"--verify-cmd", "sh test.sh"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.err, HasSubstr("FAIL: test_add"));
  EXPECT_THAT(out.err, HasSubstr("goal budget_exhausted"));
}

TEST_F(ChatTest, AGoalThatCannotStartIsHeldAndTheChatGoesOn) {
  // The judge's provider has no key here: the goal waits, saying why.
  server.push(text_turn("Still here."));
  const RalphOutput out =
      script("/judge anthropic/judge-model\n/goal make sh test.sh pass\n/status\nhello\n");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.err, HasSubstr("ANTHROPIC_API_KEY"));
  EXPECT_THAT(out.out, HasSubstr("state: held · it could not start"));
  EXPECT_THAT(out.out, HasSubstr("Still here."));
  EXPECT_EQ(server.requests().size(), 1U) << "only the ordinary turn reached the model";
}

TEST_F(ChatTest, ClearDropsTheGoalAndTheConversation) {
  server.push(text_turn("Hi."));
  server.push(text_turn("Done."));
  server.push(text_turn("Hello again."));
  const RalphOutput out = script(
      "my secret plan is X\n/budget iterations=1\n/goal make sh test.sh pass\n/clear\n/status\n"
      "hello\n",
      {"--verify-cmd", "sh test.sh"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.err, HasSubstr("goal budget_exhausted"));
  EXPECT_THAT(out.err, HasSubstr("cleared: no goal, no conversation, nothing added with /verify, "
                                 "/judge or /budget; a fresh start"));
  EXPECT_THAT(out.out, HasSubstr("no goal"));
  EXPECT_THAT(request(2), Not(HasSubstr("my secret plan")));
  EXPECT_THAT(request(2), Not(HasSubstr("Goal: make sh test.sh pass")));
}

TEST_F(ChatTest, AMistypedCommandGetsASuggestionAndNothingIsSent) {
  // --quiet leaves out progress, not the chat's replies.
  const RalphOutput out = script("/stauts\n/goal\n/help\n", {"--quiet"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.err, HasSubstr("unknown command /stauts; did you mean /status?"));
  EXPECT_THAT(out.err, HasSubstr("/goal needs its argument: /goal TEXT"));
  EXPECT_THAT(out.out, HasSubstr("/pause"));
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(ChatTest, ResumeGoesOnWithTheConversationAndTheGoalSettings) {
  server.push(text_turn("Noted: the password is in the vault."));
  const RalphOutput first =
      script("remember the vault\n/verify sh test.sh\n/budget iterations=7\n");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string id = chat_id(first.err);

  server.push(text_turn("You said: the vault."));
  // The recorded model and server: no need to give them again.
  const RalphOutput second = run_ralph_with_input({"chat", "--resume", id}, workspace.path(),
                                                  "/status\nwhat did I say?\n", env());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_THAT(second.out, HasSubstr("budgets: iterations 7"));
  EXPECT_THAT(request(1), HasSubstr("remember the vault"));
  EXPECT_THAT(request(1), HasSubstr("Noted: the password is in the vault."));
  const json shown = show_session(id, workspace.path());
  EXPECT_EQ(shown["attempts"].size(), 2U);
}

TEST_F(ChatTest, ResumingAnUnknownSessionIsAUsageError) {
  const RalphOutput out = script("", {"--resume", "nope"});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_THAT(out.err, HasSubstr("--resume nope: no session nope in this workspace"));
}

TEST_F(ChatTest, AGoalOfACliThatReportsNoExitCodesIsHeldSayingWhy) {
  // A goal is verifier-first: with Gemini CLI, whose results carry no exit codes, it could never
  // pass, so it does not start; the chat goes on.
  TempDir home;
  FakeAgentCli cli(home);
  cli.script({FakeRun().session("g-1").say("Hi, I am gemini.")});
  const RalphOutput out =
      run_ralph_with_input({"chat", "--agent", "gemini"}, workspace.path(),
                           "/goal make sh test.sh pass\nhello\n", cli.env_map());
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.err, HasSubstr("gemini reports no exit codes of the commands it runs"));
  EXPECT_THAT(out.out, HasSubstr("Hi, I am gemini."));
  EXPECT_EQ(cli.invocations().size(), 1U) << "only the ordinary turn ran the CLI";
}

TEST_F(ChatTest, AnAgentCliKeepsItsOwnSessionAcrossTurnsAndGoals) {
  TempDir home;
  FakeAgentCli cli(home);
  cli.script({FakeRun().session("g-1").say("Hi, I am codex."),
              FakeRun()
                  .session("g-1")
                  .write("add.sh", k_fixed_add)
                  .shell("sh test.sh")
                  .say(std::string("Fixed.\n") + k_marker)});
  std::map<std::string, std::string> environment = cli.env_map();
  environment["XDG_STATE_HOME"] = state.path().string();
  const RalphOutput out =
      run_ralph_with_input({"chat", "--agent", "codex", "--verify-cmd", "sh test.sh"},
                           workspace.path(), "hello\n/goal make sh test.sh pass\n", environment);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("Hi, I am codex."));
  EXPECT_THAT(out.err, HasSubstr("goal completed"));
  const auto calls = cli.invocations();
  ASSERT_EQ(calls.size(), 2U);
  // The goal went on in the CLI's session of the chat.
  const auto second = calls[1]["argv"].get<std::vector<std::string>>();
  EXPECT_THAT(second, ::testing::Contains("resume"));
  EXPECT_THAT(second, ::testing::Contains("g-1"));
  EXPECT_THAT(calls[1]["stdin"].get<std::string>(), HasSubstr("Plan -> Act -> Verify"));
}

// Typed into a pseudo-terminal: the model's first answer is held back until the test lets it
// go, so what is typed meanwhile lands while the goal runs, with no timing involved.
class ChatTerminalTest : public ChatTest {
protected:
  ChatTerminalTest() {
    m_held->released = m_release.get_future().share();
    // The server's thread may still be waking from the wait when the fixture is destroyed (the
    // server, a member of the base, outlives this class's members), so what it reads is shared.
    server.set_responder([held = m_held](const RecordedRequest&) -> std::optional<FakeTurn> {
      if (held->seen.fetch_add(1) == 0) {
        held->released.wait();
        return held->first;
      }
      return std::nullopt;
    });
  }
  ~ChatTerminalTest() override { release(); }

  // The answer the held first request gets once released.
  void first_answer(FakeTurn turn) { m_held->first = std::move(turn); }
  void release() {
    if (!m_released) {
      m_released = true;
      m_release.set_value();
    }
  }
  std::unique_ptr<RalphProcess> start(std::vector<std::string> extra = {}) {
    auto process = std::make_unique<RalphProcess>(args(std::move(extra)), workspace.path(), env(),
                                                  Streams::interactive);
    EXPECT_TRUE(process->read_until("ralph> ", k_wait)) << process->live();
    return process;
  }
  // Types `text` and waits until the screen shows `expected` after what it showed before.
  static bool type(RalphProcess& chat, const std::string& text, const std::string& expected) {
    const std::size_t from = chat.live().size();
    chat.write(text);
    return chat.read_until(expected, k_wait, from);
  }

  static constexpr std::chrono::seconds k_wait{30};

private:
  struct Held {
    std::shared_future<void> released;
    std::atomic<int> seen{0};
    FakeTurn first = text_turn("(late)");
  };
  std::promise<void> m_release;
  std::shared_ptr<Held> m_held = std::make_shared<Held>();
  bool m_released = false;
};

TEST_F(ChatTerminalTest, StatusDuringAGoalAndCtrlCHoldsItWithoutLeavingThenResumeFinishesIt) {
  auto chat = start({"--verify-cmd", "sh test.sh"});
  chat->write("/goal make sh test.sh pass\r");
  ASSERT_TRUE(server.wait_for_requests(1, k_wait));
  ASSERT_TRUE(type(*chat, "/status\r", "running · attempt 1 of 3")) << chat->live();
  EXPECT_THAT(chat->live(), HasSubstr("goal: make sh test.sh pass"));
  // Ctrl-C stops the attempt, not the program.
  ASSERT_TRUE(type(*chat, "\x03", "goal held")) << chat->live();
  release();
  ASSERT_TRUE(type(*chat, "/status\r", "state: held")) << chat->live();
  ASSERT_TRUE(type(*chat, "/exit\r", "--resume")) << chat->live();
  const RalphOutput left = chat->wait();
  ASSERT_EQ(left.exit_code, 0) << left.err;
  const std::string id = chat_id(left.err);

  // The held goal goes on in a later chat, from where it stopped.
  server.push(write_add(k_fixed_add));
  server.push(tool_turn("shell", {{"command", "sh test.sh"}}));
  server.push(text_turn(std::string("Fixed.\n") + k_marker));
  const RalphOutput resumed = script("/resume\n/status\n", {"--resume", id});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  // The resumed chat says where its goal stands first.
  EXPECT_THAT(resumed.err, HasSubstr("state: held · stopped during attempt 1"));
  EXPECT_THAT(resumed.err, HasSubstr("goal completed"));
  EXPECT_THAT(resumed.out, HasSubstr("state: completed"));
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
}

// What is typed while the status line turns goes on a line of its own, and neither a command nor
// a Ctrl-C leaves a status line behind on the screen.
TEST_F(ChatTerminalTest, TypingAndCtrlCDuringAGoalLeaveNoStatusLineBehind) {
  auto chat = start({"--verify-cmd", "sh test.sh"});
  chat->write("/goal make sh test.sh pass\r");
  ASSERT_TRUE(server.wait_for_requests(1, k_wait));
  const std::string spinner = "waiting for the model";
  ASSERT_TRUE(chat->read_until(spinner, k_wait)) << chat->live();
  ASSERT_TRUE(type(*chat, "/status\r", "running · attempt 1 of 3")) << chat->live();
  // The status line comes back, and is there when Ctrl-C stops the attempt.
  ASSERT_TRUE(chat->read_until(spinner, k_wait, chat->live().find("running · attempt 1 of 3")))
      << chat->live();
  ASSERT_TRUE(type(*chat, "\x03", "goal held")) << chat->live();
  ASSERT_TRUE(type(*chat, "/exit\r", "--resume")) << chat->live();
  const RalphOutput left = chat->wait();
  ASSERT_EQ(left.exit_code, 0) << left.err;

  const std::vector<std::string> screen = terminal_screen(left.out);
  std::string shown;
  for (const std::string& line : screen) {
    shown += line + "\n";
  }
  EXPECT_THAT(screen, ::testing::Contains("/status")) << shown;
  EXPECT_THAT(shown, Not(HasSubstr(spinner))) << shown;
}

TEST_F(ChatTerminalTest, PauseHoldsTheGoalAfterItsAttemptAndResumeGoesOn) {
  first_answer(text_turn(std::string("All fixed.\n") + k_marker));
  auto chat = start({"--verify-cmd", "sh test.sh"});
  chat->write("/goal make sh test.sh pass\r");
  ASSERT_TRUE(server.wait_for_requests(1, k_wait));
  ASSERT_TRUE(type(*chat, "/pause\r", "the goal holds once this attempt ends")) << chat->live();
  const std::size_t before = chat->live().size();
  release();
  // The attempt ends, is verified and fails; the goal holds instead of going on.
  ASSERT_TRUE(chat->read_until("paused after attempt 1", k_wait, before)) << chat->live();
  EXPECT_THAT(chat->live().substr(before), HasSubstr("FAIL: test_add"));
  EXPECT_EQ(server.requests().size(), 1U);
  ASSERT_TRUE(type(*chat, "/status\r", "state: held")) << chat->live();
  server.push(write_add(k_fixed_add));
  server.push(tool_turn("shell", {{"command", "sh test.sh"}}));
  server.push(text_turn(std::string("Fixed.\n") + k_marker));
  ASSERT_TRUE(type(*chat, "/resume\r", "goal completed")) << chat->live();
  EXPECT_THAT(chat->live(), HasSubstr("attempt 2 of 3"));
  chat->write("\x04"); // Ctrl-D leaves
  const RalphOutput left = chat->wait();
  EXPECT_EQ(left.exit_code, 0) << left.err;
  EXPECT_EQ(workspace.read("add.sh"), k_fixed_add);
}

TEST_F(ChatTerminalTest, CtrlCStopsAnOrdinaryTurnAndTheChatGoesOn) {
  auto chat = start();
  chat->write("tell me a long story\r");
  ASSERT_TRUE(server.wait_for_requests(1, k_wait));
  ASSERT_TRUE(type(*chat, "\x03", "the turn was stopped")) << chat->live();
  release();
  server.push(text_turn("A short one, then."));
  ASSERT_TRUE(type(*chat, "a short one then\r", "A short one, then.")) << chat->live();
  ASSERT_TRUE(chat->read_until("ralph> ", k_wait, chat->live().rfind("A short one, then.")));
  // Ctrl-C at the prompt says how to leave, and leaves nothing.
  ASSERT_TRUE(type(*chat, "\x03", "Ctrl-D or /exit leaves")) << chat->live();
  chat->write("/exit\r");
  EXPECT_EQ(chat->wait().exit_code, 0);
}

TEST_F(ChatTerminalTest, SigtermDuringATurnEndsTheChatRecordedAsInterrupted) {
  auto chat = start();
  chat->write("tell me a long story\r");
  ASSERT_TRUE(server.wait_for_requests(1, k_wait));
  chat->signal(SIGTERM);
  const RalphOutput out = chat->wait();
  EXPECT_EQ(out.exit_code, 130) << out.err;
  release();
  const json shown = show_session(chat_id(out.err), workspace.path());
  EXPECT_EQ(shown["status"], "interrupted");
  ASSERT_EQ(shown["attempts"].size(), 1U);
  EXPECT_EQ(shown["attempts"][0]["stop"], "cancelled");
}

} // namespace
} // namespace ralph::testing
