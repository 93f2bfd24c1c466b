// One model turn through the real stack: make_provider, request building, CurlTransport over
// loopback HTTP (keep-alive), SSE decoding, stream reading, against the in-process
// FakeProviderServer (cpp-httplib, its own threads).
//
// CPU time: the default rows count the benchmark thread only, i.e. ralph's client side; the
// `process_cpu` rows count every thread of the process, so they include the fake server's own
// work (routing, JSON answers, socket writes). Real time is the loopback latency of a turn.
// The user_us / sys_us counters split the benchmark thread's CPU per turn into user space
// (ralph, libcurl, libc) and the kernel (loopback TCP, poll, wake-ups).

#include "counting_observer.h"
#include "fake_provider/fake_provider_server.h"
#include "thread_cpu.h"
#include "wire_samples.h"

#include "ralph/core/clock.h"
#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

namespace ralph::bench {
namespace {

// ~800 bytes: the fake server streams it as 50 content chunks of 16 bytes.
std::string answer_text() {
  std::string text;
  while (text.size() < 800) {
    text += "The fix guards the escape branch and the new test passes. ";
  }
  text.resize(800);
  return text;
}

testing::FakeTurn text_turn() {
  testing::FakeTurn turn;
  turn.text = answer_text();
  return turn;
}

testing::FakeTurn tool_turn() {
  testing::FakeTurn turn;
  turn.text = "Let me read the parser first.";
  turn.tool_calls.push_back(
      {.name = "read_file",
       .arguments = R"({"path":"src/module_03/parser.cpp","offset":1,"limit":200})"});
  return turn;
}

void run_turn(benchmark::State& state, const std::string& provider_name, testing::FakeTurn turn) {
  testing::FakeProviderServer server;
  http::CurlTransport transport;
  SystemClock clock;
  llm::ProviderConfig config;
  config.spec = llm::parse_model_spec(provider_name + "/bench-model").value();
  config.base_url = server.base_url() + (provider_name == "anthropic" ? "" : "/v1");
  config.api_key = "sk-bench";
  auto provider = llm::make_provider(config, transport, clock);
  if (!provider) {
    state.SkipWithError(provider.error().message.c_str());
    return;
  }
  const std::vector<Message> messages = conversation(2);
  llm::ChatRequest request;
  request.model = "bench-model";
  request.system = "You are a coding agent.";
  request.messages = messages;
  request.tools = builtin_specs();
  CountingObserver observer;
  const CancelToken cancel;
  const auto [user_before, sys_before] = thread_cpu_us();
  for (auto _ : state) {
    server.push(turn); // a copy under a mutex: well under 1% of a turn
    auto response = (*provider)->chat(request, &observer, cancel);
    if (!response) {
      state.SkipWithError(response.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(response);
  }
  const auto [user_after, sys_after] = thread_cpu_us();
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["user_us"] = (user_after - user_before) / iterations;
  state.counters["sys_us"] = (sys_after - sys_before) / iterations;
}

void BM_ProviderTurn_OpenAiText(benchmark::State& state) {
  run_turn(state, "openai-compat", text_turn());
}
BENCHMARK(BM_ProviderTurn_OpenAiText)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ProviderTurn_OpenAiText)
    ->Name("BM_ProviderTurn_OpenAiText/process_cpu")
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);

void BM_ProviderTurn_OpenAiToolCall(benchmark::State& state) {
  run_turn(state, "openai-compat", tool_turn());
}
BENCHMARK(BM_ProviderTurn_OpenAiToolCall)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ProviderTurn_OpenAiToolCall)
    ->Name("BM_ProviderTurn_OpenAiToolCall/process_cpu")
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);

void BM_ProviderTurn_AnthropicText(benchmark::State& state) {
  run_turn(state, "anthropic", text_turn());
}
BENCHMARK(BM_ProviderTurn_AnthropicText)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ProviderTurn_AnthropicText)
    ->Name("BM_ProviderTurn_AnthropicText/process_cpu")
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);

} // namespace
} // namespace ralph::bench
