#pragma once

// The session ralph keeps for one agent session across its Stop-hook calls: each call is an
// attempt with its verdicts, and the budgets of a round (the stops after one prompt of the
// person) hold across calls.

#include "ralph/app/hook/stop_hook.h"
#include "ralph/core/clock.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/redactor.h"
#include "ralph/store/session_store.h"
#include "ralph/verify/protected_paths.h"
#include "ralph/verify/verdict.h"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::app {

// ralph's id for the agent's session: "<agent>-<its id>", e.g. "claude-1f2e", the characters kept
// to letters, digits, '-', '_' and '.' (it names a folder of outputs).
std::string hook_session_id(std::string_view agent, std::string_view agent_session_id);

// A round: the attempts since the person last let the agent stop. Budgets count from its start.
struct HookRound {
  int first_iteration = 1;
  std::chrono::system_clock::time_point started;
};

// One hook call's place in its session, and the record it adds to. Times come from the `clock`
// it is given (its calendar time), which must outlive it.
class HookSession {
public:
  // Opens the call's attempt: a new session (with `baseline`) when `row` is none, the session's
  // first call; a new round when the agent stopped after the last call and this stop does not
  // follow a hook's block.
  static Result<HookSession> begin(store::SessionStore& store, std::optional<store::SessionRow> row,
                                   const StopRequest& request, const std::string& id,
                                   const verify::ProtectedSnapshot& baseline,
                                   const Redactor& redactor, const Clock& clock);

  int round_attempt() const { return m_row.iterations - m_round.first_iteration + 1; }
  // Time since the round's first stop, on the clock.
  std::chrono::milliseconds round_elapsed() const;
  const store::SessionRow& row() const { return m_row; }

  // Records the attempt's verdicts and what the hook decided: `status` (active while the agent
  // goes on), `reason` and `feedback` (what the agent was told).
  Result<void> finish(const std::vector<verify::Verdict>& verdicts, Status status, bool verified,
                      const std::string& reason, const std::string& feedback);

private:
  HookSession(store::SessionStore& store, store::SessionRow row, HookRound round,
              std::string answer, std::string started_at, Redactor redactor, const Clock& clock)
      : m_store(&store), m_row(std::move(row)), m_round(round), m_answer(std::move(answer)),
        m_started_at(std::move(started_at)), m_redactor(std::move(redactor)), m_clock(&clock) {}

  store::SessionStore* m_store;
  store::SessionRow m_row;
  HookRound m_round;
  std::string m_answer;
  std::string m_started_at;
  Redactor m_redactor;
  const Clock* m_clock;
};

} // namespace ralph::app
