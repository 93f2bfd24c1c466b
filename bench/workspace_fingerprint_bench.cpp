// What deciding "did this tool call change the workspace?" costs in verifier-first runs: one
// fingerprint walk of the whole workspace (no cap) after each call that may write. Measured on
// 100,000 and 1,000,000 files (1,000 files per folder, in /dev/shm), warm cache, against the walk
// as it was before (std::filesystem's recursive iterator, a relative path string per entry),
// uncapped.

#include "loop/workspace_fingerprint.h"
#include "support/many_files_dir.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <sys/stat.h>

namespace ralph::bench {
namespace {

namespace fs = std::filesystem;

const fs::path& workspace_of(std::int64_t files) {
  // Made once per size, removed at exit.
  static std::map<std::int64_t, std::unique_ptr<testing::ManyFilesDir>> made;
  auto& slot = made[files];
  if (!slot) {
    slot = std::make_unique<testing::ManyFilesDir>(files);
  }
  return slot->path();
}

// The walk before this change, without its cap: the baseline.
std::uint64_t std_filesystem_walk(const fs::path& workspace) {
  std::uint64_t hash = 0;
  std::error_code ec;
  fs::recursive_directory_iterator it(workspace, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string relative = it->path().lexically_relative(workspace).generic_string();
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) != 0) {
      continue;
    }
    hash += std::hash<std::string>{}(relative) ^ static_cast<std::uint64_t>(info.st_mtim.tv_nsec);
  }
  return hash;
}

void BM_Fingerprint_Walk(benchmark::State& state) {
  const fs::path& root = workspace_of(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(loop::fingerprint_workspace(root));
  }
  state.counters["files"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_Fingerprint_Walk)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_Fingerprint_StdFilesystemBaseline(benchmark::State& state) {
  const fs::path& root = workspace_of(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(std_filesystem_walk(root));
  }
  state.counters["files"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_Fingerprint_StdFilesystemBaseline)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ralph::bench
