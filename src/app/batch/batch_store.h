#pragma once

#include "ralph/app/batch/batch_results.h"
#include "ralph/core/cancel.h"
#include "ralph/core/settings.h"
#include "ralph/store/session_store.h"

#include <map>
#include <mutex>
#include <optional>

namespace ralph::app {

// The one session store every session of a batch shares, seen by the batch: calls are
// serialised, so any SessionStore may be beneath (the SQLite store needs it no more, being
// thread-safe itself), and the counters each write of a session row carries are summed, so the
// batch's token and cost budgets are checked at every model call. When a write makes the sum reach
// a limit, `stop` is cancelled once and spent() says which budget it was. Thread-safe.
class BatchStore final : public store::SessionStore {
public:
  // `limits`: max_tokens and max_cost_usd are read (0: none).
  BatchStore(store::SessionStore& inner, BudgetSettings limits, CancelToken stop);

  // Counts a session of the batch that is not running (found in the store at the start).
  void count(const store::SessionRow& session);
  BatchSpend spend() const;
  std::optional<BudgetKind> spent() const;

  Result<void> create_session(const store::SessionRow& session) override;
  Result<void> update_session(const store::SessionRow& session) override;
  Result<std::optional<store::SessionRow>> find_session(const std::string& id) override;
  Result<std::vector<store::SessionRow>> list_sessions() override;
  Result<std::optional<store::SessionRecord>> load(const std::string& id) override;
  Result<bool> remove_session(const std::string& id) override;
  Result<std::vector<std::string>> prune(const std::string& cutoff) override;
  Result<void> save_attempt(const store::AttemptRow& attempt) override;
  Result<void> finish_attempt(const store::AttemptRow& attempt,
                              const std::vector<store::VerdictRow>& verdicts,
                              const store::SessionRow& session) override;
  Result<void> add_model_call(const store::ModelCallRow& call,
                              const store::SessionRow& session) override;
  Result<void> add_tool_call(const store::ToolCallRow& call) override;

private:
  void note(const store::SessionRow& session); // with m_mutex held

  store::SessionStore& m_inner;
  BudgetSettings m_limits;
  CancelToken m_stop;
  mutable std::mutex m_mutex;
  std::map<std::string, BatchSpend, std::less<>> m_sessions;
  BatchSpend m_total;
  int m_unpriced = 0; // sessions whose cost is a lower bound
  std::optional<BudgetKind> m_spent;
};

} // namespace ralph::app
