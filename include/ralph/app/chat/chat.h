#pragma once

#include "ralph/agent/agent.h"
#include "ralph/app/chat/chat_observer.h"
#include "ralph/app/chat/chat_state.h"
#include "ralph/app/chat/chat_status.h"
#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/config.h"
#include "ralph/core/redactor.h"
#include "ralph/engine/io.h"
#include "ralph/session/models.h"
#include "ralph/session/report.h"
#include "ralph/session/runtime.h"
#include "ralph/session/session.h"
#include "ralph/store/session_store.h"
#include "ralph/tools/registry.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ralph::app {

// A chat to open: a new one in `workspace`, or the chat `resume_id` as recorded.
struct ChatRequest {
  std::filesystem::path workspace; // canonical
  // Resolved once: a new chat runs with it; a resumed one is looked up in the store it names and
  // runs with its recorded configuration instead, `flags` over it.
  Config config;
  std::vector<Setting> flags; // what the person set for this opening (the command line's flags)
  std::string resume_id;      // empty: a new chat
};

// Whom a change of the goal's settings is for.
enum class ChangeFor {
  goal,      // the active goal, from its next attempt
  next_goal, // the next goal set (none is active)
};

// One chat: a conversation with the agent (the built-in one, or an external CLI that keeps its
// own session), ordinary turns answered once and unverified, and at most one goal at a time run
// verifier-first under the outer loop. The chat is a session of kind `chat` in the store (its
// turns are its attempts, its state the resume point); each goal is a session of kind `goal`
// whose parent is the chat, so it is shown, resumed and budgeted like any run. Nothing here
// prints: what happens goes to the ChatObserver, where the goal stands is status().
//
// Threads: say() and work_on_goal() run on one thread (a worker), one at a time; the commands
// (set_goal, request_hold, add_verify, status, ...) may come from another while that work runs.
// What both touch is behind a mutex.
class Chat {
public:
  // Opens the chat. The store is the hosting's, else the one `request.config` names (a chat is a
  // recorded session: a configuration error when the store is off); the io is the hosting's, else
  // blocking I/O of its own; the hosting's model, when given, serves the built-in agent. Mistakes
  // are errors before anything is recorded: no such chat, a session that is no chat, a chat open
  // in a live process, an agent that cannot be made. `cancel` stops the agent's tools for good
  // (the process ends). `runtime`, the hosting's io, store and model and `observer` must outlive
  // the chat.
  static Result<std::unique_ptr<Chat>> open(session::Runtime& runtime, ChatRequest request,
                                            session::Hosting hosting, ChatObserver& observer,
                                            const CancelToken& cancel);
  ~Chat();
  Chat(const Chat&) = delete;
  Chat& operator=(const Chat&) = delete;

  const std::string& id() const { return m_row.id; }
  // The configuration the chat runs with (a resumed chat's recorded one, its flags over it).
  const Config& config() const { return m_config; }

  // --- the worker thread ---
  // One ordinary turn: `text` is said and answered once, unverified, and recorded as the chat's
  // next attempt. A cancel stops it (status interrupted); what it did is kept.
  Result<session::SessionReport> say(const std::string& text, const CancelToken& cancel);
  // Works on the goal until it ends or is held: status interrupted means held (request_hold, a
  // cancel), with the reason. Settings changed meanwhile apply from the next attempt. An error:
  // the goal could not start (a judge without its key, say); it is held, saying why.
  Result<session::SessionReport> work_on_goal(const CancelToken& cancel);

  // --- any thread ---
  // Starts a new goal (the previous one, held or ended, is dropped): the next work_on_goal()
  // works on it. What was added for the next goal comes with it.
  void set_goal(const std::string& text);
  // True when there is a held goal to go on with.
  bool goal_held() const;
  // Holds the running goal once its current attempt has ended; false when none runs unheld.
  bool request_hold();
  // Lets a held goal go on (the next work_on_goal() continues it from its record); false when
  // none is held.
  bool release_hold();
  // A command verifier, an LLM judge ("provider/model"), or budget keys ("loop.max_iterations",
  // "budget.max_tokens", ...; `flag` names them in errors) for the active goal, or the next goal
  // when none is active. A value the configuration refuses is an error and changes nothing.
  Result<ChangeFor> add_verify(const std::string& command);
  Result<ChangeFor> set_judge(const std::string& model);
  Result<ChangeFor> change_budgets(const std::vector<ConfigOverride>& changes);
  // The goal, its attempt, the last verdicts and the budgets, as they stand now.
  ChatStatus status() const;
  // The goal and the conversation are dropped (a fresh start, as seed 004's new objective); the
  // chat goes on.
  void clear();
  // The chat ends: its record says so and that no process owns it. `interrupted`: by a signal.
  void close(bool interrupted);

private:
  struct Progress; // what status() shows of the running goal, fed by its events
  class Tap;       // the running work's events, counted for status() on their way out

  Chat(session::Runtime& runtime, ChatRequest request, session::Hosting hosting,
       ChatObserver& observer, const CancelToken& cancel);

  // While alive the worker owns the chat's row and the store: commands from other threads only
  // change the state, which the end of the work records.
  class Working {
  public:
    explicit Working(Chat& chat);
    ~Working();
    Working(const Working&) = delete;
    Working& operator=(const Working&) = delete;

  private:
    Chat& m_chat;
  };

  Result<void> start_new();
  Result<void> resume(const std::string& resume_id, const std::vector<Setting>& flags);
  Result<void> make_agent();
  Result<Config> goal_config(const GoalSettings& settings) const;
  Result<loop::LoopResult> run_goal_once(ChatGoal goal, const CancelToken& cancel);
  void save();      // the chat's state recorded now, or by the work running
  void write_row(); // the chat's row with its state, as one write
  std::string now() const;
  // m_row.elapsed_ms as of now: the chat's time open, this opening and those before.
  void stamp_elapsed();
  // The goal not ended yet (running or held), or null; with m_mutex held.
  ChatGoal* active_goal();
  const ChatGoal* active_goal() const;
  // Edits the current goal's settings, or the next goal's when none is active; the current goal
  // goes on with them from its next attempt.
  ChangeFor change_settings(const std::function<void(GoalSettings&)>& edit);

  session::Runtime& m_runtime;
  std::filesystem::path m_workspace;
  Config m_config;
  CancelToken m_cancel;
  std::unique_ptr<engine::Io> m_own_io;
  engine::Io* m_io;
  std::unique_ptr<store::SessionStore> m_own_store;
  store::SessionStore* m_store;
  std::optional<session::Model> m_hosted_model;
  std::unique_ptr<session::ModelProviders> m_models;
  ChatObserver& m_observer;
  Redactor m_redactor;
  std::mutex m_row_mutex;  // m_row and its writes: the work's last and a command's may meet
  store::SessionRow m_row; // the chat's; kept current by the work, written by write_row()
  // A chat's time is the time it is open, the person's included, not only its turns': the
  // time recorded by earlier openings, and when this one began (by the chat's clock).
  std::chrono::milliseconds m_open_before{0};
  Clock::time_point m_opened;

  // The agent all turns and goals share, so an external CLI keeps one session.
  std::optional<session::Model> m_model;
  std::unique_ptr<tools::Registry> m_registry;
  std::unique_ptr<agent::Agent> m_agent;

  mutable std::mutex m_mutex; // everything below
  ChatState m_state;
  std::unique_ptr<Progress> m_progress;
  bool m_working = false;             // a turn or goal runs on the worker thread
  std::atomic<bool> m_hold{false};    // request_hold: end the goal's run after this attempt
  std::atomic<bool> m_changed{false}; // settings changed: end this run and go on with them
};

} // namespace ralph::app
