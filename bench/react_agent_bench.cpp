// The ReactAgent loop over a ScriptedProvider (no network) with the real built-in tools in a
// temporary workspace: per step, the agent's own work (events, conversation bookkeeping), the
// scripted model's and the tool's. File-tool steps show the overhead without subprocesses;
// `shell` steps running `true` show what one posix_spawn round trip adds.

#include "counting_sink.h"
#include "temp_workspace.h"

#include "ralph/agent/react_agent.h"
#include "ralph/llm/scripted_provider.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/tools/process_runner.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>
#include <vector>

namespace ralph::bench {
namespace {

enum class StepKind { files, shell };

// `steps` model turns: steps - 1 tool turns, then the answer.
std::vector<llm::ScriptedTurn> script(int steps, StepKind kind) {
  std::vector<llm::ScriptedTurn> turns;
  for (int i = 0; i + 1 < steps; ++i) {
    llm::ScriptedTurn turn;
    turn.text = "Looking at the sources next.";
    if (kind == StepKind::shell) {
      turn.tool_calls.push_back({.name = "shell", .arguments = R"({"command":"true"})"});
    } else if (i % 2 == 0) {
      turn.tool_calls.push_back({.name = "list_dir", .arguments = R"({"path":"src"})"});
    } else {
      turn.tool_calls.push_back(
          {.name = "read_file",
           .arguments = fmt::format(R"({{"path":"src/parser_{}.cpp"}})", i % 12)});
    }
    turns.push_back(std::move(turn));
  }
  turns.push_back({.text = "Done: the parser guards the escape branch now."});
  return turns;
}

void run_agent(benchmark::State& state, StepKind kind) {
  const int steps = static_cast<int>(state.range(0));
  const TempWorkspace workspace;
  tools::PosixProcessRunner runner;
  const tools::Registry registry = tools::make_builtin_registry({}, runner);
  const std::vector<llm::ScriptedTurn> turns = script(steps, kind);
  CountingSink sink;
  const CancelToken cancel;
  for (auto _ : state) {
    llm::ScriptedProvider provider("bench", turns);
    agent::ReactAgent agent(provider, registry, {.workspace = workspace.root()},
                            {llm::ProviderKind::scripted, "bench"}, {.max_steps = steps});
    std::vector<Message> conversation{{.role = Role::user, .content = "Fix the parser."}};
    const agent::AgentOutcome outcome = agent.run(conversation, cancel, sink, sink);
    if (outcome.stop != agent::AgentStop::answered || outcome.steps != steps) {
      state.SkipWithError("the run did not answer");
      return;
    }
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["per_step"] =
      benchmark::Counter(static_cast<double>(steps) * iterations,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_ReactAgent_FileTools(benchmark::State& state) {
  run_agent(state, StepKind::files);
}
BENCHMARK(BM_ReactAgent_FileTools)->Arg(10)->Arg(40)->Unit(benchmark::kMicrosecond);

// Real time matters here: the child runs in its own process, outside this thread's CPU time.
void BM_ReactAgent_ShellTrue(benchmark::State& state) {
  run_agent(state, StepKind::shell);
}
BENCHMARK(BM_ReactAgent_ShellTrue)->Arg(10)->Unit(benchmark::kMicrosecond)->UseRealTime();

} // namespace
} // namespace ralph::bench
