// What deciding "did this tool call change the workspace?" costs in verifier-first runs: one
// fingerprint walk of the whole workspace (no cap) after each call that may write. Measured on
// 100,000 and 1,000,000 files (1,000 files per folder, in /dev/shm), warm cache, against the walk
// as it was before (std::filesystem's recursive iterator, a relative path string per entry),
// uncapped.

#include "loop/workspace_fingerprint.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace ralph::bench {
namespace {

namespace fs = std::filesystem;

// In memory (/dev/shm) when there is one: making a million files on a busy disk takes many
// minutes. The walk reads the kernel's inode and directory caches either way (warm cache).
fs::path files_parent() {
  return fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
}

// A workspace of `files` empty files, made once per size and removed at exit.
class ManyFiles {
public:
  explicit ManyFiles(std::int64_t files)
      : m_root(files_parent() / fmt::format("ralph-bench-files-{}-{}", getpid(), files)) {
    fs::create_directories(m_root);
    for (std::int64_t i = 0; i < files; ++i) {
      const fs::path dir = m_root / fmt::format("d{:04}", i / 1000);
      if (i % 1000 == 0) {
        fs::create_directory(dir);
      }
      const fs::path file = dir / fmt::format("f{:04}.txt", i % 1000);
      const int fd = ::creat(file.c_str(), 0644);
      if (fd >= 0) {
        ::close(fd);
      }
    }
  }
  ~ManyFiles() {
    std::error_code ignored;
    fs::remove_all(m_root, ignored);
  }
  ManyFiles(const ManyFiles&) = delete;
  ManyFiles& operator=(const ManyFiles&) = delete;

  const fs::path& root() const { return m_root; }

private:
  fs::path m_root;
};

const fs::path& workspace_of(std::int64_t files) {
  static std::map<std::int64_t, std::unique_ptr<ManyFiles>> made;
  auto& slot = made[files];
  if (!slot) {
    slot = std::make_unique<ManyFiles>(files);
  }
  return slot->root();
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
