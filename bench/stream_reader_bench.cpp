// The OpenAI and Anthropic stream readers on a whole realistic turn (200 token-sized text
// deltas, then a write_file call whose ~1 KB of arguments arrive in 20 pieces), fed in 1 KB
// reads: SSE decoding, reading each chunk's JSON, forwarding deltas, assembling the response.

#include "counting_observer.h"
#include "llm/anthropic_stream.h"
#include "llm/openai_stream.h"
#include "wire_samples.h"

#include "ralph/http/transport.h"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace ralph::bench {
namespace {

template <typename MakeReader>
void run_reader(benchmark::State& state, const SampleStream& stream, MakeReader make_reader) {
  const std::vector<std::string_view> reads = split_reads(stream.bytes, 1024);
  CountingObserver observer;
  http::Response response;
  response.status = 200;
  for (auto _ : state) {
    auto reader = make_reader(&observer);
    reader.begin();
    for (std::string_view read : reads) {
      if (!reader.feed(read)) {
        state.SkipWithError("reader failed");
        return;
      }
    }
    auto result = reader.finish(response);
    if (!result || result->message.tool_calls.size() != 1) {
      state.SkipWithError("unexpected result");
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(stream.bytes.size()) * state.iterations());
  state.counters["events"] = static_cast<double>(stream.events);
  state.counters["per_event"] =
      benchmark::Counter(static_cast<double>(stream.events) * iterations,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_OpenAiStreamReader_Turn(benchmark::State& state) {
  run_reader(state, openai_stream(200, 20), [](llm::StreamObserver* observer) {
    return llm::OpenAiStreamReader("openai", "sk-bench", observer);
  });
}
BENCHMARK(BM_OpenAiStreamReader_Turn);

void BM_AnthropicStreamReader_Turn(benchmark::State& state) {
  run_reader(state, anthropic_stream(200, 20), [](llm::StreamObserver* observer) {
    return llm::AnthropicStreamReader("sk-ant-bench", observer);
  });
}
BENCHMARK(BM_AnthropicStreamReader_Turn);

} // namespace
} // namespace ralph::bench
