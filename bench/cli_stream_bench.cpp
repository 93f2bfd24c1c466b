// Reading an agent CLI's output stream (make_cli_stream_parser), beside parsing the same lines as
// JSON and nothing more (the baseline: every format's parser must at least do that), on a
// Claude Code stream-json session of 2000 tool calls (text, tool_use, tool_result per call).

#include "ralph/agent/cli_stream.h"
#include "ralph/core/json.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ralph::bench {
namespace {

std::vector<std::string> claude_session() {
  std::vector<std::string> lines;
  lines.emplace_back(R"({"type":"system","subtype":"init","session_id":"s","model":"m"})");
  for (int i = 0; i < 2000; ++i) {
    lines.push_back(fmt::format(
        R"({{"type":"assistant","message":{{"id":"m{0}","content":[{{"type":"text","text":"Running the tests, step {0}."}}]}},"session_id":"s"}})",
        i));
    lines.push_back(fmt::format(
        R"({{"type":"assistant","message":{{"id":"m{0}","content":[{{"type":"tool_use","id":"t{0}","name":"Bash","input":{{"command":"make test","description":"Run tests"}}}}]}},"session_id":"s"}})",
        i));
    lines.push_back(fmt::format(
        R"({{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{0}","content":"Exit code 2\nFAIL parse_test: expected 5, got -1\n{1}","is_error":true}}]}},"session_id":"s"}})",
        i, std::string(400, 'x')));
  }
  lines.emplace_back(
      R"({"type":"result","subtype":"success","is_error":false,"result":"Done.","session_id":"s","total_cost_usd":0.1,"usage":{"input_tokens":10,"output_tokens":2}})");
  return lines;
}

std::int64_t bytes_of(const std::vector<std::string>& lines) {
  std::int64_t total = 0;
  for (const auto& line : lines) {
    total += static_cast<std::int64_t>(line.size()) + 1;
  }
  return total;
}

void BM_CliStream_ClaudeSession(benchmark::State& state) {
  const auto lines = claude_session();
  std::vector<agent::CliEvent> events;
  for (auto _ : state) {
    auto parser = agent::make_cli_stream_parser(CliFormat::claude);
    for (const auto& line : lines) {
      parser->parse_line(line, events);
      events.clear();
    }
    parser->finish(events);
    benchmark::DoNotOptimize(events.data());
    events.clear();
  }
  state.SetBytesProcessed(state.iterations() * bytes_of(lines));
}
BENCHMARK(BM_CliStream_ClaudeSession)->Unit(benchmark::kMillisecond);

void BM_CliStream_JsonParseBaseline(benchmark::State& state) {
  const auto lines = claude_session();
  for (auto _ : state) {
    for (const auto& line : lines) {
      auto parsed = parse_json(line, "line");
      benchmark::DoNotOptimize(parsed);
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes_of(lines));
}
BENCHMARK(BM_CliStream_JsonParseBaseline)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ralph::bench
