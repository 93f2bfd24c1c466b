#pragma once

#include "ralph/core/message.h"
#include "ralph/core/settings.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::loop {

// What a run has spent so far, all runs of the session included.
struct BudgetCounters {
  Usage usage;
  double cost_usd = 0;
  bool cost_known = true;
  std::int64_t elapsed_ms = 0;
};

// How much of one budget is used: attempts finished, tokens, US dollars or seconds.
struct BudgetUse {
  BudgetKind budget = BudgetKind::tokens;
  double used = 0;
  double limit = 0;
};

// Counts what a run spends against its limits (`settings`, and `max_iterations` attempts), with
// times from the run's Clock. Not thread-safe: the loop feeds it from its own thread.
class BudgetTracker {
public:
  using time_point = std::chrono::steady_clock::time_point;

  BudgetTracker(BudgetSettings settings, int max_iterations, PriceTable prices, time_point start);

  // `cost_usd`, when given, is what the calls cost by the agent's own account; else the price
  // table's.
  void add(std::string_view model, const Usage& usage,
           std::optional<double> cost_usd = std::nullopt);
  // What is left of the cost budget; none without one.
  std::optional<double> cost_left() const;
  // Counts what earlier runs of a resumed session spent (their time through `start`).
  void carry(const Usage& usage, double cost_usd, bool cost_known);
  void set_iteration(int iteration) { m_iteration = iteration; }

  const BudgetSettings& settings() const { return m_settings; }
  const Usage& usage() const { return m_usage; }
  double cost_usd() const { return m_cost; }
  // False once usage was spent on a model with no price: the cost is then a lower bound.
  bool cost_known() const { return m_unpriced.empty(); }
  const std::vector<std::string>& unpriced_models() const { return m_unpriced; }
  std::chrono::milliseconds elapsed(time_point now) const;
  BudgetCounters counters(time_point now) const;

  // The first token, cost or time budget that is used up (iterations are the loop's to count).
  std::optional<BudgetKind> exhausted(time_point now) const;
  // Budgets close to spent since the last call, each reported once: a token, cost or time budget
  // at 80%, and the iterations when the last of several attempts starts.
  std::vector<BudgetUse> new_warnings(time_point now);
  // When the time budget runs out; time_point::max() without one.
  time_point deadline() const;

private:
  double fraction(BudgetKind kind, time_point now) const;
  double used(BudgetKind kind, time_point now) const;
  double limit(BudgetKind kind) const;

  BudgetSettings m_settings;
  int m_max_iterations;
  PriceTable m_prices;
  time_point m_start;
  Usage m_usage;
  double m_cost = 0;
  int m_iteration = 0;
  std::vector<std::string> m_unpriced;
  std::vector<BudgetKind> m_warned;
};

} // namespace ralph::loop
