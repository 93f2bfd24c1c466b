#pragma once

#include "ralph/verify/output_lines.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::verify {

// What the test runners in a command's output said about the tests: how many failed and passed,
// and which. It lets the loop tell progress (fewer failures) and regressions (a test that passed
// fails now) apart from a verdict that merely repeats. Only what the output says is counted: a
// runner that names its failures but not its passing tests (go test without -v) leaves `passed`
// and `total` unknown rather than guessed.
struct TestSummary {
  std::string runner;        // "pytest", "go test", ...; several joined by " + "
  int failed = 0;            // failed and errored tests
  std::optional<int> passed; // nullopt: the output does not say
  std::optional<int>
      total; // every test the runners counted, skipped ones included; nullopt: unsaid
  // Names of failing and passing tests as the runner writes them, in output order, without
  // repeats, at most k_max_test_names each. Passing ones only where the runner lists them
  // (cargo, ctest, and verbose runs of the others).
  std::vector<std::string> failing;
  std::vector<std::string> passing;

  bool operator==(const TestSummary&) const = default;
};

inline constexpr std::size_t k_max_test_names = 2000;

// Reads a command's output line by line as a LineSplitter hands it over (so the lines come
// cleaned, and long ones cut) and finds the summaries of pytest, python's unittest, go test,
// cargo test, ctest, jest and vitest. It holds only what it found, so any size of output streams
// through. Several runners' summaries are added up, except that a ctest summary, which already
// counts the programs it ran, stands alone. Not thread-safe.
class TestSummaryParser final : public LineConsumer {
public:
  TestSummaryParser();
  ~TestSummaryParser() override;
  TestSummaryParser(const TestSummaryParser&) = delete;
  TestSummaryParser& operator=(const TestSummaryParser&) = delete;

  void on_line(std::size_t number, std::string_view line) override;
  // The summary of every line seen; nullopt when no runner's summary was found. The parser is
  // spent afterwards.
  std::optional<TestSummary> finish();

private:
  struct State;
  std::unique_ptr<State> m_state;
};

// Adds `more` to `names`, up to k_max_test_names in all.
void append_test_names(std::vector<std::string>& names, const std::vector<std::string>& more);

// The summary of a whole output at once (see TestSummaryParser).
std::optional<TestSummary> parse_test_summary(std::string_view output);

// "pytest: 2 failed, 5 passed, 7 total" for feedback and records; only the counts that are known
// ("go test: 2 failed").
std::string describe_tests(const TestSummary& summary);

} // namespace ralph::verify
