#pragma once

#include "cli/chat_state.h"
#include "cli/terminal_view.h"

#include "ralph/agent/agent.h"
#include "ralph/core/cancel.h"
#include "ralph/core/redactor.h"
#include "ralph/engine/io.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/session/models.h"
#include "ralph/session/runtime.h"
#include "ralph/store/session_store.h"
#include "ralph/tools/registry.h"

#include <atomic>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ralph::cli {

// What a chat runs in: the process's runtime, the workspace and configuration, the store it is
// recorded in, its I/O, Ctrl-C, and the command line's flags (over a resumed chat's recorded
// configuration).
struct ChatHost {
  session::Runtime& runtime;
  std::filesystem::path workspace;
  Config config;
  store::SessionStore* store = nullptr;
  engine::Io& io;
  CancelToken cancel;
  std::vector<Setting> flags;
};

// One chat: a conversation with the agent (the built-in one, or an external CLI that keeps its
// own session), ordinary turns answered once and unverified, and at most one goal at a time run
// verifier-first under the outer loop. The chat is a session of kind `chat` in the store (its
// turns are its attempts, its state the resume point); each goal is a session of kind `goal`
// whose parent is the chat, so it is shown, resumed and budgeted like any run.
//
// Threads: say() and work_on_goal() run on one worker thread, one at a time; the commands
// (set_goal, add_verify, status_text, ...) come from the input thread and may arrive while that
// work runs. What both touch is behind a mutex.
class ChatSession {
public:
  // A new chat in the host's workspace, or the chat `resume_id` as recorded (the host's
  // configuration is then the chat's recorded one, with the command's flags over it). The view
  // shows every event; answers stream to its stdout.
  static Result<std::unique_ptr<ChatSession>> open(ChatHost host, TerminalView& view,
                                                   const std::string& resume_id);
  ~ChatSession();
  ChatSession(const ChatSession&) = delete;
  ChatSession& operator=(const ChatSession&) = delete;

  const std::string& id() const { return m_row.id; }
  // The configuration the chat runs with (a resumed chat's recorded one, flags over it).
  const Config& config() const { return m_host.config; }
  const Redactor& redactor() const { return m_redactor; }
  // Whether the chat is recorded (store.enabled); without it nothing survives the process.
  bool recorded() const { return m_store != nullptr; }

  // --- the worker thread ---
  // One ordinary turn: `text` is said and answered once, unverified. A cancel stops it; what it
  // did is kept.
  Result<loop::LoopResult> say(const std::string& text, const CancelToken& cancel);
  // Works on the goal until it ends, is held (/pause, /stop, Ctrl-C) or fails to start. Settings
  // changed meanwhile (/verify, /judge, /budget) apply from the next attempt.
  Result<loop::LoopResult> work_on_goal(const CancelToken& cancel);

  // --- the input thread ---
  // Starts a new goal (the previous one, held or ended, is dropped): the next work_on_goal()
  // works on it. What was added for the next goal comes with it.
  void set_goal(const std::string& text);
  // True when there is a held goal to go on with.
  bool goal_held() const;
  // Holds the goal once its current attempt has ended (/pause); false when there is none.
  bool request_hold();
  // Lets a held goal go on; false when none is held.
  bool release_hold();
  // /verify, /judge, /budget: for the current goal (from its next attempt), or the next goal
  // when none is active. Returns what to tell the user.
  Result<std::string> add_verify(const std::string& command);
  Result<std::string> set_judge(const std::string& model);
  Result<std::string> change_budgets(const std::vector<BudgetChange>& changes);
  // /budget alone: the goal's budgets as they stand.
  std::string budgets_text() const;
  // /status: the goal, its attempt, the last verdicts and the budgets.
  std::string status_text() const;
  // /clear: the goal and the conversation are dropped (a fresh start, as seed 004's new
  // objective); the chat session goes on.
  void clear();
  // The chat ends: its record says so. `interrupted`: by a signal.
  void close(bool interrupted);

private:
  struct Progress; // what /status shows of the running goal, fed by its events
  class Tap;       // the events of the running work, counted for /status and shown

  ChatSession(ChatHost host, TerminalView& view);

  // While alive the worker owns the chat's row and the store: commands from the input thread
  // only change the state, which the end of the work records.
  class Working {
  public:
    explicit Working(ChatSession& chat);
    ~Working();
    Working(const Working&) = delete;
    Working& operator=(const Working&) = delete;

  private:
    ChatSession& m_chat;
  };

  Result<void> make_agent();
  Result<Config> goal_config(const GoalSettings& settings) const;
  Result<loop::LoopResult> run_goal_once(ChatGoal goal, const CancelToken& cancel);
  void save();      // the chat's state recorded now, or by the work running (input thread)
  void write_row(); // the chat's row with its state, as one write
  // The goal not ended yet (running or held), or null; with m_mutex held.
  ChatGoal* active_goal();
  const ChatGoal* active_goal() const;
  // Edits the current goal's settings, or the next goal's when none is active; true for the
  // current goal's, which goes on with them from its next attempt.
  bool change_settings(const std::function<void(GoalSettings&)>& edit);

  ChatHost m_host;
  std::unique_ptr<session::ModelProviders> m_models;
  TerminalView& m_view;
  store::SessionStore* m_store;
  Redactor m_redactor;
  std::mutex m_row_mutex;  // m_row and its writes: the work's last and a command's may meet
  store::SessionRow m_row; // the chat's; kept current by the work, written by write_row()

  // The agent all turns and goals share, so an external CLI keeps one session.
  std::optional<session::Model> m_model;
  std::unique_ptr<tools::Registry> m_registry;
  std::unique_ptr<agent::Agent> m_agent;

  mutable std::mutex m_mutex; // everything below
  ChatState m_state;
  std::unique_ptr<Progress> m_progress;
  bool m_working = false;             // a turn or goal runs on the worker thread
  std::atomic<bool> m_hold{false};    // /pause: end the goal's run after this attempt
  std::atomic<bool> m_changed{false}; // settings changed: end this run and go on with them
};

} // namespace ralph::cli
