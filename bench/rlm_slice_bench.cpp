// What exploring a 1 GiB document costs in the RLM sandbox: mapping it, a Lua execution taking
// 1000 slices of 4 KB spread over it, a plain-text find of a rare string over all of it, and
// the first line_count() (the line index build). The file is real, written once to the temp
// folder (a 64 KB block of log lines repeated; a rare token in two blocks) and removed at exit;
// after the first pass it is in the page cache, so the figures are warm-cache figures.

#include "ralph/rlm/mapped_document.h"
#include "ralph/rlm/sandbox.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace ralph::bench {
namespace {

constexpr std::size_t k_block_bytes = std::size_t{64} << 10;
constexpr std::size_t k_blocks = 16384; // 1 GiB
constexpr const char* k_rare = "RARE-TOKEN-7f3a9c";

std::string log_block(std::size_t seed) {
  std::string block;
  for (std::size_t line = 0; block.size() < k_block_bytes; ++line) {
    block +=
        fmt::format("2026-11-23T10:{:02}:{:02}.{:03}Z INFO worker-{} request {} served in {} ms "
                    "path=/api/items/{}\n",
                    line % 60, (line * 7) % 60, line % 1000, line % 8, seed * 1000 + line,
                    line % 250, line * 31 % 10007);
  }
  block.resize(k_block_bytes);
  block.back() = '\n';
  return block;
}

// The 1 GiB file, created on first use and removed when the program ends.
class BigDocument {
public:
  static const BigDocument& get() {
    static const BigDocument instance;
    return instance;
  }
  BigDocument(const BigDocument&) = delete;
  BigDocument& operator=(const BigDocument&) = delete;
  ~BigDocument() {
    std::error_code ec;
    std::filesystem::remove(m_path, ec);
  }
  const std::filesystem::path& path() const { return m_path; }

private:
  BigDocument()
      : m_path(std::filesystem::temp_directory_path() /
               fmt::format("ralph-rlm-bench-{}.log", ::getpid())) {
    std::FILE* file = std::fopen(m_path.c_str(), "wb");
    if (file == nullptr) {
      throw std::runtime_error("cannot create " + m_path.string());
    }
    const std::string block = log_block(1);
    std::string rare_block = block;
    rare_block.replace(100, std::string(k_rare).size(), k_rare);
    for (std::size_t i = 0; i < k_blocks; ++i) {
      const std::string& data = (i == k_blocks / 2 || i == k_blocks - 1) ? rare_block : block;
      if (std::fwrite(data.data(), 1, data.size(), file) != data.size()) {
        std::fclose(file);
        throw std::runtime_error("cannot write " + m_path.string());
      }
    }
    std::fclose(file);
  }

  std::filesystem::path m_path;
};

Result<rlm::SubAnswer> no_queries(const rlm::SubQuery& /*query*/) {
  return fail(ErrorKind::internal, "no sub-queries in the benchmark");
}

void run_lua(benchmark::State& state, rlm::Sandbox& sandbox, const std::string& code,
             const std::string& expected) {
  const rlm::ExecResult result = sandbox.execute(code, CancelToken());
  if (result.error || result.output != expected) {
    state.SkipWithError(("unexpected output: " + result.output).c_str());
  }
}

void BM_Rlm_MapDocument(benchmark::State& state) {
  const auto& path = BigDocument::get().path();
  for (auto _ : state) {
    auto doc = rlm::MappedDocument::open(path);
    benchmark::DoNotOptimize(doc->text().data());
  }
}
BENCHMARK(BM_Rlm_MapDocument)->Unit(benchmark::kMicrosecond);

void BM_Rlm_Slices(benchmark::State& state) {
  auto opened = rlm::MappedDocument::open(BigDocument::get().path());
  if (!opened) {
    state.SkipWithError(opened.error().message.c_str());
    return;
  }
  const rlm::MappedDocument& doc = *opened;
  auto sandbox = rlm::make_lua_sandbox(doc.text(), no_queries);
  const std::string code = R"(
    local step = #doc // 1000
    local total = 0
    for i = 0, 999 do total = total + #doc:slice(i * step + 1, i * step + 4096) end
    return total)";
  for (auto _ : state) {
    run_lua(state, *sandbox, code, "4096000\n");
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_Rlm_Slices)->Unit(benchmark::kMicrosecond);

void BM_Rlm_FindRare(benchmark::State& state) {
  auto opened = rlm::MappedDocument::open(BigDocument::get().path());
  if (!opened) {
    state.SkipWithError(opened.error().message.c_str());
    return;
  }
  const rlm::MappedDocument& doc = *opened;
  auto sandbox = rlm::make_lua_sandbox(doc.text(), no_queries);
  const std::string code = fmt::format("return #doc:find('{}')", k_rare);
  for (auto _ : state) {
    run_lua(state, *sandbox, code, "2\n");
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(doc.size()));
}
BENCHMARK(BM_Rlm_FindRare)->Unit(benchmark::kMillisecond);

// The first line_count() of a sandbox builds its line index; each iteration starts a new one.
void BM_Rlm_LineCount(benchmark::State& state) {
  auto opened = rlm::MappedDocument::open(BigDocument::get().path());
  if (!opened) {
    state.SkipWithError(opened.error().message.c_str());
    return;
  }
  const rlm::MappedDocument& doc = *opened;
  const std::string expected =
      fmt::format("{}\n", std::count(doc.text().begin(), doc.text().end(), '\n'));
  for (auto _ : state) {
    state.PauseTiming();
    auto sandbox = rlm::make_lua_sandbox(doc.text(), no_queries);
    state.ResumeTiming();
    run_lua(state, *sandbox, "return doc:line_count()", expected);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(doc.size()));
}
BENCHMARK(BM_Rlm_LineCount)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ralph::bench
