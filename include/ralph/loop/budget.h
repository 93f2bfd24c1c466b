#pragma once

#include "ralph/core/message.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::loop {

// Limits of one run; 0 means no limit. Tokens and cost count every model call of the run, the
// judge's included.
struct BudgetLimits {
  int max_iterations = 3;
  std::int64_t max_tokens = 0; // input + output
  double max_cost_usd = 0;
  std::chrono::milliseconds max_time{0};
};

// USD per million tokens.
struct Price {
  double input = 0;
  double output = 0;
};

// By "provider/model", as written in --model and --judge.
using PriceTable = std::map<std::string, Price, std::less<>>;

// What a run has spent so far, all runs of the session included.
struct BudgetCounters {
  Usage usage;
  double cost_usd = 0;
  bool cost_known = true;
  std::int64_t elapsed_ms = 0;
};

// Which budget a warning or an exhaustion is about.
enum class BudgetKind { iterations, steps, tokens, cost, time };
const char* to_string(BudgetKind kind);

// Counts what a run spends against its limits. Not thread-safe: the loop feeds it from its own
// thread.
class BudgetTracker {
public:
  BudgetTracker(BudgetLimits limits, PriceTable prices,
                std::chrono::steady_clock::time_point start);

  void add(std::string_view model, const Usage& usage);
  // Counts what earlier runs of a resumed session spent (their time through `start`).
  void carry(const Usage& usage, double cost_usd, bool cost_known);
  void set_iteration(int iteration) { m_iteration = iteration; }

  const BudgetLimits& limits() const { return m_limits; }
  const Usage& usage() const { return m_usage; }
  double cost_usd() const { return m_cost; }
  // False once usage was spent on a model with no price: the cost is then a lower bound.
  bool cost_known() const { return m_unpriced.empty(); }
  const std::vector<std::string>& unpriced_models() const { return m_unpriced; }
  std::chrono::milliseconds elapsed(std::chrono::steady_clock::time_point now) const;
  BudgetCounters counters(std::chrono::steady_clock::time_point now) const;

  // The first token, cost or time budget that is used up (iterations are the loop's to count).
  std::optional<BudgetKind> exhausted(std::chrono::steady_clock::time_point now) const;
  // Budgets that reached 80% since the last call, each reported once, with the percent used.
  std::vector<std::pair<BudgetKind, int>> new_warnings(std::chrono::steady_clock::time_point now);
  // When the time budget runs out; time_point::max() without one.
  std::chrono::steady_clock::time_point deadline() const;

private:
  double fraction(BudgetKind kind, std::chrono::steady_clock::time_point now) const;

  BudgetLimits m_limits;
  PriceTable m_prices;
  std::chrono::steady_clock::time_point m_start;
  Usage m_usage;
  double m_cost = 0;
  int m_iteration = 0;
  std::vector<std::string> m_unpriced;
  std::vector<BudgetKind> m_warned;
};

} // namespace ralph::loop
