#pragma once

// The Stop hook's decision: the answer a person's own agent CLI (Claude Code, Codex, Gemini CLI)
// stopped with, checked by the workspace's verifiers and recorded as an attempt of that agent
// session's ralph session; the round's budgets (the stops after one prompt of the person) end it
// as they end a run of the loop. The CLIs' wire formats are the front door's.

#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/engine/io.h"
#include "ralph/session/runtime.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ralph::app {

// One stop of an agent CLI, as its hook payload said, with its workspace's configuration.
struct StopRequest {
  std::string agent;               // the CLI: "claude", "codex", "gemini"; names the session
  std::string agent_session;       // the CLI's own session id
  std::filesystem::path workspace; // canonical: the agent session's working directory
  std::string prompt;              // the round's prompt, the judge's goal; empty: unknown
  std::string answer;              // the agent's last message
  bool follows_block = false;      // this stop follows a hook's block (stop_hook_active)
  Config config;                   // resolved once for the workspace
};

// What the hook tells the agent and the person. Its texts are redacted.
struct StopDecision {
  bool block = false;                // send the agent back to work
  std::string feedback;              // when blocking: the failures, for the agent
  std::string message;               // when a budget lets a failing stop through: for the person
  std::vector<std::string> warnings; // about the configuration (a judge of the agent's family)
  std::string session_id;            // ralph's session of the agent session: "claude-<its id>"
};

// One stop, decided in two steps so that the warnings can be shown before the verifiers run.
class StopHook {
public:
  // The store, the recorded session and the verifiers made ready; nothing is recorded or run yet.
  // Configuration mistakes are errors here: verifier-first settings (the hook sees no tool
  // calls), a cost budget without prices, no session store (budgets hold across stops in it), no
  // verifier, a judge without its key. `runtime` and `io` must outlive it.
  static Result<std::unique_ptr<StopHook>> prepare(session::Runtime& runtime, StopRequest request,
                                                   engine::Io& io);
  ~StopHook();
  StopHook(const StopHook&) = delete;
  StopHook& operator=(const StopHook&) = delete;

  const std::vector<std::string>& warnings() const;
  const std::string& session_id() const;

  // Once: records the stop as an attempt, checks the answer and decides: let through when it
  // passed, block with feedback while the round's budgets last, else let through with a message.
  // Time is the round's on `clock`. An error means nothing was decided (the agent may stop): when a
  // check could not be made, the attempt is recorded with its verdicts and the session stays
  // active.
  Result<StopDecision> decide(Clock& clock, const CancelToken& cancel);

private:
  struct Parts;
  explicit StopHook(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> m_parts;
};

// prepare() and decide() in one call; the decision carries prepare's warnings.
Result<StopDecision> decide_stop(session::Runtime& runtime, const StopRequest& request,
                                 engine::Io& io, Clock& clock, const CancelToken& cancel);

} // namespace ralph::app
