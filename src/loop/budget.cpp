#include "ralph/loop/budget.h"

#include <algorithm>
#include <cmath>

namespace ralph::loop {
namespace {

constexpr double k_warning_fraction = 0.8;
constexpr double k_per_million = 1e-6;

} // namespace

const char* to_string(BudgetKind kind) {
  switch (kind) {
  case BudgetKind::iterations:
    return "iterations";
  case BudgetKind::steps:
    return "steps";
  case BudgetKind::tokens:
    return "tokens";
  case BudgetKind::cost:
    return "cost";
  case BudgetKind::time:
    return "time";
  }
  return "iterations";
}

BudgetTracker::BudgetTracker(BudgetLimits limits, PriceTable prices,
                             std::chrono::steady_clock::time_point start)
    : m_limits(limits), m_prices(std::move(prices)), m_start(start) {}

void BudgetTracker::add(std::string_view model, const Usage& usage) {
  m_usage += usage;
  const auto price = m_prices.find(model);
  if (price == m_prices.end()) {
    if (usage.input_tokens + usage.output_tokens > 0 &&
        std::find(m_unpriced.begin(), m_unpriced.end(), model) == m_unpriced.end()) {
      m_unpriced.emplace_back(model);
    }
    return;
  }
  m_cost += static_cast<double>(usage.input_tokens) * price->second.input * k_per_million +
            static_cast<double>(usage.output_tokens) * price->second.output * k_per_million;
}

void BudgetTracker::carry(const Usage& usage, double cost_usd, bool cost_known) {
  m_usage += usage;
  m_cost += cost_usd;
  if (!cost_known && m_unpriced.empty()) {
    m_unpriced.emplace_back("(an earlier run)");
  }
}

std::chrono::milliseconds BudgetTracker::elapsed(std::chrono::steady_clock::time_point now) const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - m_start);
}

BudgetCounters BudgetTracker::counters(std::chrono::steady_clock::time_point now) const {
  return {m_usage, m_cost, cost_known(), elapsed(now).count()};
}

double BudgetTracker::fraction(BudgetKind kind, std::chrono::steady_clock::time_point now) const {
  switch (kind) {
  case BudgetKind::steps:
    return 0; // per attempt: the agent enforces it
  case BudgetKind::iterations:
    return m_limits.max_iterations > 0 ? static_cast<double>(m_iteration) / m_limits.max_iterations
                                       : 0;
  case BudgetKind::tokens:
    return m_limits.max_tokens > 0
               ? static_cast<double>(m_usage.input_tokens + m_usage.output_tokens) /
                     static_cast<double>(m_limits.max_tokens)
               : 0;
  case BudgetKind::cost:
    return m_limits.max_cost_usd > 0 ? m_cost / m_limits.max_cost_usd : 0;
  case BudgetKind::time:
    return m_limits.max_time.count() > 0 ? static_cast<double>(elapsed(now).count()) /
                                               static_cast<double>(m_limits.max_time.count())
                                         : 0;
  }
  return 0;
}

std::optional<BudgetKind>
BudgetTracker::exhausted(std::chrono::steady_clock::time_point now) const {
  for (BudgetKind kind : {BudgetKind::tokens, BudgetKind::cost, BudgetKind::time}) {
    if (fraction(kind, now) >= 1.0) {
      return kind;
    }
  }
  return std::nullopt;
}

std::vector<std::pair<BudgetKind, int>>
BudgetTracker::new_warnings(std::chrono::steady_clock::time_point now) {
  std::vector<std::pair<BudgetKind, int>> out;
  for (BudgetKind kind :
       {BudgetKind::iterations, BudgetKind::tokens, BudgetKind::cost, BudgetKind::time}) {
    const double used = fraction(kind, now);
    if (used >= k_warning_fraction &&
        std::find(m_warned.begin(), m_warned.end(), kind) == m_warned.end()) {
      m_warned.push_back(kind);
      out.emplace_back(kind, static_cast<int>(std::lround(std::min(used, 1.0) * 100)));
    }
  }
  return out;
}

std::chrono::steady_clock::time_point BudgetTracker::deadline() const {
  if (m_limits.max_time.count() <= 0) {
    return std::chrono::steady_clock::time_point::max();
  }
  return m_start + m_limits.max_time;
}

} // namespace ralph::loop
