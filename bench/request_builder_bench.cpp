// Building the JSON body of one request for a conversation of 2, 40 and 200 messages (tool
// calls with ~150 bytes of arguments, results of ~1.5 KB, the six built-in tool specs), for both
// APIs. The agent rebuilds the body every turn, so this is the per-turn cost of history: it must
// grow linearly with the conversation (BigO fit and per_message below), never quadratically.

#include "llm/anthropic_request.h"
#include "llm/openai_request.h"
#include "wire_samples.h"

#include "ralph/llm/openai_provider.h"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace ralph::bench {
namespace {

template <typename Build> void run_builder(benchmark::State& state, Build build) {
  const std::vector<Message> messages = conversation(static_cast<std::size_t>(state.range(0)));
  llm::ChatRequest request;
  request.model = "gpt-4.1";
  request.system = std::string(2000, 's');
  request.messages = messages;
  request.tools = builtin_specs();
  std::size_t body_bytes = 0;
  for (auto _ : state) {
    const std::string body = build(request);
    body_bytes = body.size();
    benchmark::DoNotOptimize(body.data());
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.SetComplexityN(state.range(0));
  state.SetBytesProcessed(static_cast<std::int64_t>(body_bytes) * state.iterations());
  state.counters["body_bytes"] = static_cast<double>(body_bytes);
  state.counters["per_message"] =
      benchmark::Counter(static_cast<double>(messages.size()) * iterations,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_BuildOpenAiBody(benchmark::State& state) {
  const llm::OpenAiDialect dialect = llm::OpenAiDialect::openai();
  run_builder(state, [&](const llm::ChatRequest& request) {
    return llm::build_openai_body(dialect, request);
  });
}
BENCHMARK(BM_BuildOpenAiBody)->Arg(2)->Arg(40)->Arg(200)->Complexity();

void BM_BuildAnthropicBody(benchmark::State& state) {
  run_builder(state,
              [](const llm::ChatRequest& request) { return llm::build_anthropic_body(request); });
}
BENCHMARK(BM_BuildAnthropicBody)->Arg(2)->Arg(40)->Arg(200)->Complexity();

} // namespace
} // namespace ralph::bench
