#include "test_progress.h"

#include <fmt/format.h>

namespace ralph::loop {
namespace {

// Enough to act on; a sweeping breakage is better summed up than listed.
constexpr std::size_t k_listed_regressions = 10;

} // namespace

std::vector<TestChange> TestProgress::observe(int iteration,
                                              const std::vector<verify::Verdict>& verdicts) {
  std::vector<TestChange> changes(verdicts.size());
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    const verify::Verdict& verdict = verdicts[i];
    if (!verdict.tests) {
      continue;
    }
    History& history = m_by_verifier[verdict.verifier];
    changes[i].failed_before = history.failed;
    for (const std::string& test : verdict.tests->failing) {
      if (const auto passed = history.last_passed_in.find(test);
          passed != history.last_passed_in.end()) {
        changes[i].regressions.push_back(Regression{test, passed->second});
      }
    }
    history.failed = verdict.tests->failed;
    for (const std::string& test : verdict.tests->passing) {
      history.last_passed_in[test] = iteration;
    }
  }
  return changes;
}

std::string describe_test_change(const verify::Verdict& verdict, const TestChange& change) {
  if (!verdict.tests) {
    return {};
  }
  std::string text =
      change.failed_before
          ? fmt::format("failing tests: {} → {}", *change.failed_before, verdict.tests->failed)
          : fmt::format("failing tests: {}", verdict.tests->failed);
  if (verdict.tests->total) {
    text += fmt::format(" of {}", *verdict.tests->total);
  }
  text += fmt::format(" ({})", verdict.tests->runner);
  for (std::size_t i = 0; i < change.regressions.size() && i < k_listed_regressions; ++i) {
    text += fmt::format("\nregression: {} passed in attempt {}, fails now",
                        change.regressions[i].test, change.regressions[i].passed_in);
  }
  if (change.regressions.size() > k_listed_regressions) {
    text += fmt::format("\n... and {} more tests that passed before fail now",
                        change.regressions.size() - k_listed_regressions);
  }
  return text;
}

} // namespace ralph::loop
