// Everything a model turn costs, together: a 10-step ReactAgent run (9 list_dir / read_file tool
// turns, then the answer) with the real OpenAI-compatible provider over loopback HTTP to the
// in-process FakeProviderServer and the real built-in tools in a temporary workspace. Each step
// rebuilds the request from the growing conversation, streams, parses, runs a tool and emits
// events. CPU time is the benchmark thread's (ralph's side; the fake server's threads are not
// counted); user_us / sys_us split it per step.

#include "counting_sink.h"
#include "fake_provider/fake_provider_server.h"
#include "temp_workspace.h"
#include "thread_cpu.h"

#include "ralph/agent/react_agent.h"
#include "ralph/core/clock.h"
#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/tools/process_runner.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <vector>

namespace ralph::bench {
namespace {

constexpr int k_steps = 10;

std::vector<testing::FakeTurn> script() {
  std::vector<testing::FakeTurn> turns;
  for (int i = 0; i + 1 < k_steps; ++i) {
    testing::FakeTurn turn;
    turn.text = "Looking at the sources next.";
    turn.tool_calls.push_back(
        i % 2 == 0 ? ToolCall{.name = "list_dir", .arguments = R"({"path":"src"})"}
                   : ToolCall{.name = "read_file",
                              .arguments = fmt::format(R"({{"path":"src/parser_{}.cpp"}})", i)});
    turns.push_back(std::move(turn));
  }
  testing::FakeTurn answer;
  answer.text = "Done: the parser guards the escape branch now, and the new test passes.";
  turns.push_back(std::move(answer));
  return turns;
}

void BM_AgentTurn_OpenAiLoopback(benchmark::State& state) {
  testing::FakeProviderServer server;
  http::CurlTransport transport;
  SystemClock clock;
  llm::ProviderConfig config;
  config.spec = {llm::ProviderKind::openai_compat, "bench-model"};
  config.base_url = server.base_url() + "/v1";
  auto provider = llm::make_provider(config, transport, clock);
  if (!provider) {
    state.SkipWithError(provider.error().message.c_str());
    return;
  }
  const TempWorkspace workspace;
  tools::PosixProcessRunner runner;
  const tools::Registry registry = tools::make_builtin_registry({}, runner);
  const std::vector<testing::FakeTurn> turns = script();
  CountingSink sink;
  const CancelToken cancel;
  const auto [user_before, sys_before] = thread_cpu_us();
  for (auto _ : state) {
    for (const testing::FakeTurn& turn : turns) {
      server.push(turn);
    }
    agent::ReactAgent agent(**provider, registry, {.workspace = workspace.root()},
                            {llm::ProviderKind::openai_compat, "bench-model"},
                            {.max_steps = k_steps});
    std::vector<Message> conversation{{.role = Role::user, .content = "Fix the parser."}};
    const agent::AgentOutcome outcome = agent.run(conversation, cancel, sink, sink);
    if (outcome.stop != agent::AgentStop::answered || outcome.steps != k_steps) {
      state.SkipWithError(outcome.error ? outcome.error->message.c_str() : "no answer");
      return;
    }
  }
  const auto [user_after, sys_after] = thread_cpu_us();
  const double steps = static_cast<double>(state.iterations()) * k_steps;
  state.counters["per_step"] =
      benchmark::Counter(steps, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["user_us"] = (user_after - user_before) / steps;
  state.counters["sys_us"] = (sys_after - sys_before) / steps;
}
BENCHMARK(BM_AgentTurn_OpenAiLoopback)->Unit(benchmark::kMicrosecond);

} // namespace
} // namespace ralph::bench
