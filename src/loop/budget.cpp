#include "ralph/loop/budget.h"

#include <algorithm>
#include <cmath>

namespace ralph::loop {
namespace {

constexpr double k_warning_fraction = 0.8;
constexpr double k_per_million = 1e-6;

} // namespace

BudgetTracker::BudgetTracker(BudgetSettings settings, int max_iterations, PriceTable prices,
                             time_point start)
    : m_settings(settings), m_max_iterations(max_iterations), m_prices(std::move(prices)),
      m_start(start) {}

void BudgetTracker::add(std::string_view model, const Usage& usage) {
  m_usage += usage;
  const auto price = m_prices.find(model);
  if (price == m_prices.end()) {
    if (usage.total_tokens() > 0 &&
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

std::chrono::milliseconds BudgetTracker::elapsed(time_point now) const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - m_start);
}

BudgetCounters BudgetTracker::counters(time_point now) const {
  return {m_usage, m_cost, cost_known(), elapsed(now).count()};
}

double BudgetTracker::fraction(BudgetKind kind, time_point now) const {
  switch (kind) {
  case BudgetKind::steps:
  case BudgetKind::sub_queries:
    return 0; // per attempt: the agent enforces them
  case BudgetKind::iterations:
    return m_max_iterations > 0 ? static_cast<double>(m_iteration) / m_max_iterations : 0;
  case BudgetKind::tokens:
    return m_settings.max_tokens > 0 ? static_cast<double>(m_usage.total_tokens()) /
                                           static_cast<double>(m_settings.max_tokens)
                                     : 0;
  case BudgetKind::cost:
    return m_settings.max_cost_usd > 0 ? m_cost / m_settings.max_cost_usd : 0;
  case BudgetKind::time:
    return m_settings.max_time.count() > 0 ? static_cast<double>(elapsed(now).count()) /
                                                 static_cast<double>(m_settings.max_time.count())
                                           : 0;
  }
  return 0;
}

std::optional<BudgetKind> BudgetTracker::exhausted(time_point now) const {
  for (BudgetKind kind : {BudgetKind::tokens, BudgetKind::cost, BudgetKind::time}) {
    if (fraction(kind, now) >= 1.0) {
      return kind;
    }
  }
  return std::nullopt;
}

std::vector<BudgetUse> BudgetTracker::new_warnings(time_point now) {
  std::vector<BudgetUse> out;
  const auto once = [&](BudgetKind kind) {
    if (std::find(m_warned.begin(), m_warned.end(), kind) != m_warned.end()) {
      return false;
    }
    m_warned.push_back(kind);
    return true;
  };
  // The last attempt starting is worth a word; a run of one attempt has no other.
  if (m_max_iterations > 1 && m_iteration >= m_max_iterations && once(BudgetKind::iterations)) {
    out.push_back({BudgetKind::iterations, used(BudgetKind::iterations, now),
                   static_cast<double>(m_max_iterations)});
  }
  for (BudgetKind kind : {BudgetKind::tokens, BudgetKind::cost, BudgetKind::time}) {
    if (fraction(kind, now) >= k_warning_fraction && once(kind)) {
      out.push_back({kind, used(kind, now), limit(kind)});
    }
  }
  return out;
}

double BudgetTracker::used(BudgetKind kind, time_point now) const {
  switch (kind) {
  case BudgetKind::iterations:
    return std::max(0, m_iteration - 1); // attempts finished
  case BudgetKind::tokens:
    return static_cast<double>(m_usage.input_tokens + m_usage.output_tokens);
  case BudgetKind::cost:
    return m_cost;
  case BudgetKind::time:
    return static_cast<double>(elapsed(now).count()) / 1000.0;
  default:
    return 0;
  }
}

double BudgetTracker::limit(BudgetKind kind) const {
  switch (kind) {
  case BudgetKind::iterations:
    return m_max_iterations;
  case BudgetKind::tokens:
    return static_cast<double>(m_settings.max_tokens);
  case BudgetKind::cost:
    return m_settings.max_cost_usd;
  case BudgetKind::time:
    return static_cast<double>(m_settings.max_time.count()) / 1000.0;
  default:
    return 0;
  }
}

BudgetTracker::time_point BudgetTracker::deadline() const {
  if (m_settings.max_time.count() <= 0) {
    return time_point::max();
  }
  return m_start + m_settings.max_time;
}

} // namespace ralph::loop
