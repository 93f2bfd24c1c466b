// What one `read_file` call costs on a small source file (2 KB, the common case): open, stat,
// read, the numbered excerpt. Before issue 13 every call zero-filled a 64 KB buffer first.

#include "temp_workspace.h"

#include "ralph/tools/builtin_tools.h"

#include <benchmark/benchmark.h>

namespace ralph::bench {
namespace {

void BM_ReadFileTool_2KB(benchmark::State& state) {
  const TempWorkspace workspace;
  const auto tool = tools::make_read_file_tool();
  const tools::ToolContext context{.workspace = workspace.root()};
  for (auto _ : state) {
    tools::ToolResult result = tool->run(R"({"path":"src/parser_3.cpp"})", context);
    if (result.is_error) {
      state.SkipWithError(result.content.c_str());
      return;
    }
    benchmark::DoNotOptimize(result.content.data());
  }
}
BENCHMARK(BM_ReadFileTool_2KB)->Unit(benchmark::kMicrosecond);

} // namespace
} // namespace ralph::bench
