#include "app/best_of/candidate_ranking.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace ralph::app {
namespace {

bool applicable(const CandidateScore& c) {
  return c.passed && c.changed_lines.has_value();
}

// One rule of the order: which of two candidates it puts first (negative: `a`, positive: `b`,
// 0: it cannot tell them apart), and how it says so.
struct Rule {
  int (*compare)(const CandidateScore&, const CandidateScore&);
  std::string (*reason)(const CandidateScore&, const CandidateScore&);
};

template <typename T> int lower_first(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> all = {
      {[](const auto& a, const auto& b) { return lower_first(!applicable(a), !applicable(b)); },
       [](const auto&, const auto&) { return std::string("only one passed"); }},
      {[](const auto& a, const auto& b) {
         return a.passed ? 0 : lower_first(-a.passing_verdicts, -b.passing_verdicts);
       },
       [](const auto& a, const auto& b) {
         return fmt::format("more passing verdicts: {} vs {}", a.passing_verdicts,
                            b.passing_verdicts);
       }},
      {[](const auto& a, const auto& b) {
         return a.passed || !a.tests_passed || !b.tests_passed
                    ? 0
                    : lower_first(-*a.tests_passed, -*b.tests_passed);
       },
       [](const auto& a, const auto& b) {
         return fmt::format("more passing tests: {} vs {}", *a.tests_passed, *b.tests_passed);
       }},
      {[](const auto& a, const auto& b) {
         constexpr int unknown = std::numeric_limits<int>::max();
         return lower_first(a.changed_lines.value_or(unknown), b.changed_lines.value_or(unknown));
       },
       [](const auto& a, const auto& b) {
         return fmt::format("fewer changed lines: {} vs {}", *a.changed_lines,
                            b.changed_lines ? fmt::format("{}", *b.changed_lines)
                                            : std::string("unmeasured"));
       }},
      {[](const auto& a, const auto& b) {
         return a.cost_usd && b.cost_usd ? lower_first(*a.cost_usd, *b.cost_usd) : 0;
       },
       [](const auto& a, const auto& b) {
         return fmt::format("lower cost: ${:.4f} vs ${:.4f}", *a.cost_usd, *b.cost_usd);
       }},
      {[](const auto& a, const auto& b) { return lower_first(a.tokens, b.tokens); },
       [](const auto& a, const auto& b) {
         return fmt::format("fewer tokens: {} vs {}", a.tokens, b.tokens);
       }},
      {[](const auto& a, const auto& b) { return lower_first(a.index, b.index); },
       [](const auto&, const auto&) {
         return std::string("a tie on every measure: the lower index");
       }},
  };
  return all;
}

} // namespace

Ranking rank_candidates(const std::vector<CandidateScore>& given) {
  // Costs rank only when every candidate has one: comparing some pairs by cost and others not
  // would make the order depend on which pairs the sort happens to compare.
  std::vector<CandidateScore> candidates = given;
  if (!std::all_of(candidates.begin(), candidates.end(),
                   [](const CandidateScore& c) { return c.cost_usd.has_value(); })) {
    for (CandidateScore& candidate : candidates) {
      candidate.cost_usd.reset();
    }
  }
  std::vector<const CandidateScore*> sorted;
  sorted.reserve(candidates.size());
  for (const CandidateScore& candidate : candidates) {
    sorted.push_back(&candidate);
  }
  const auto first_difference = [](const CandidateScore& a, const CandidateScore& b) {
    for (const Rule& rule : rules()) {
      if (const int order = rule.compare(a, b); order != 0) {
        return std::pair{&rule, order};
      }
    }
    return std::pair<const Rule*, int>{nullptr, 0};
  };
  std::stable_sort(sorted.begin(), sorted.end(), [&](const auto* a, const auto* b) {
    return first_difference(*a, *b).second < 0;
  });
  Ranking ranking;
  ranking.order.reserve(sorted.size());
  for (const CandidateScore* candidate : sorted) {
    ranking.order.push_back(candidate->index);
  }
  const CandidateScore& best = *sorted.front();
  if (applicable(best)) {
    ranking.winner = best.index;
  }
  if (sorted.size() == 1) {
    ranking.reason = best.passed ? "the only attempt" : "none passed";
    return ranking;
  }
  // The first rule that tells the best from the runner-up is why it is first. Separating a
  // passing candidate from the rest means it is the only one that passed.
  const Rule* rule = first_difference(best, *sorted[1]).first;
  const std::string why =
      rule == nullptr ? "a tie on every measure" : rule->reason(best, *sorted[1]);
  if (!ranking.winner) {
    ranking.reason = "none passed; ranked first by " + why;
    return ranking;
  }
  ranking.reason = rule == &rules().front() ? "only one passed" : why;
  return ranking;
}

} // namespace ralph::app
