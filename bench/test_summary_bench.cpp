// Reading test runners' summaries out of a verify command's output (parse_test_summary), beside
// what every failing command already costs (excerpt_failures, the baseline), on about 1 MB made
// of a real runner's output repeated (tests/verify/fixtures/test_runners/*_many.txt): every line
// of the cargo and ctest samples names a test, so they are the parser's worst case.

#include "ralph/verify/output_excerpt.h"
#include "ralph/verify/test_summary.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

namespace ralph::bench {
namespace {

constexpr std::size_t k_output_bytes = 1U << 20;
constexpr const char* k_samples[] = {"pytest_many.txt", "unittest_many.txt", "cargo_many.txt",
                                     "ctest_many.txt"};

std::string megabyte_of(const std::string& name) {
  std::ifstream in(std::string(RALPH_SOURCE_DIR) + "/tests/verify/fixtures/test_runners/" + name,
                   std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string one = text.str();
  std::string out;
  while (!one.empty() && out.size() < k_output_bytes) {
    out += one;
  }
  return out;
}

void BM_TestSummary_Parse(benchmark::State& state) {
  const std::string output = megabyte_of(k_samples[state.range(0)]);
  for (auto _ : state) {
    benchmark::DoNotOptimize(verify::parse_test_summary(output));
  }
  state.SetLabel(k_samples[state.range(0)]);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * output.size()));
}
BENCHMARK(BM_TestSummary_Parse)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

void BM_ExcerptFailures_Baseline(benchmark::State& state) {
  const std::string output = megabyte_of(k_samples[state.range(0)]);
  for (auto _ : state) {
    benchmark::DoNotOptimize(verify::excerpt_failures(output, 4000));
  }
  state.SetLabel(k_samples[state.range(0)]);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * output.size()));
}
BENCHMARK(BM_ExcerptFailures_Baseline)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ralph::bench
