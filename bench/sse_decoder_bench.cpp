// http::SseDecoder on a realistic OpenAI stream: 200 token-sized content chunks and a tool call
// in 20 pieces (73 KB, 225 events), fed whole and in 1 KB reads as a socket delivers it.

#include "wire_samples.h"

#include "ralph/http/sse_decoder.h"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace ralph::bench {
namespace {

void run_decoder(benchmark::State& state, std::size_t read_bytes) {
  const SampleStream stream = openai_stream(200, 20);
  const std::vector<std::string_view> reads = read_bytes == 0
                                                  ? std::vector<std::string_view>{stream.bytes}
                                                  : split_reads(stream.bytes, read_bytes);
  std::size_t data_bytes = 0;
  for (auto _ : state) {
    http::SseDecoder decoder([&](const http::SseEvent& event) { data_bytes += event.data.size(); });
    for (std::string_view read : reads) {
      decoder.feed(read);
    }
    benchmark::DoNotOptimize(data_bytes);
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(stream.bytes.size()) * state.iterations());
  state.counters["stream_bytes"] = static_cast<double>(stream.bytes.size());
  state.counters["events"] = static_cast<double>(stream.events);
  state.counters["per_event"] =
      benchmark::Counter(static_cast<double>(stream.events) * iterations,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_SseDecoder_Whole(benchmark::State& state) {
  run_decoder(state, 0);
}
BENCHMARK(BM_SseDecoder_Whole);

void BM_SseDecoder_1KReads(benchmark::State& state) {
  run_decoder(state, 1024);
}
BENCHMARK(BM_SseDecoder_1KReads);

} // namespace
} // namespace ralph::bench
