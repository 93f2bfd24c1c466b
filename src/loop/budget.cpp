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

void BudgetTracker::add(std::string_view model, const Usage& usage,
                        std::optional<double> cost_usd) {
  m_usage += usage;
  if (cost_usd) {
    m_cost += *cost_usd;
    return;
  }
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

std::optional<double> BudgetTracker::cost_left() const {
  if (m_settings.max_cost_usd <= 0) {
    return std::nullopt;
  }
  return std::max(0.0, m_settings.max_cost_usd - m_cost);
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
  const double most = limit(kind);
  return most > 0 ? used(kind, now) / most : 0;
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
  const auto warn_once = [&](BudgetKind kind) {
    if (std::find(m_warned.begin(), m_warned.end(), kind) == m_warned.end()) {
      m_warned.push_back(kind);
      out.push_back({kind, used(kind, now), limit(kind)});
    }
  };
  // The last attempt starting is worth a word; a run of one attempt has no other.
  if (m_max_iterations > 1 && m_iteration >= m_max_iterations) {
    warn_once(BudgetKind::iterations);
  }
  for (BudgetKind kind : {BudgetKind::tokens, BudgetKind::cost, BudgetKind::time}) {
    if (fraction(kind, now) >= k_warning_fraction) {
      warn_once(kind);
    }
  }
  return out;
}

double BudgetTracker::used(BudgetKind kind, time_point now) const {
  switch (kind) {
  case BudgetKind::iterations:
    return std::max(0, m_iteration - 1); // attempts finished
  case BudgetKind::tokens:
    return static_cast<double>(m_usage.total_tokens());
  case BudgetKind::cost:
    return m_cost;
  case BudgetKind::time:
    return static_cast<double>(elapsed(now).count()) / 1000.0;
  default:
    return 0; // steps and sub-queries are per attempt: the agent enforces them
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
