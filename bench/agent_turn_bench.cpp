// Everything a model turn costs, together: a 10-step ReactAgent run (9 list_dir / read_file tool
// turns, then the answer) with the real OpenAI-compatible provider over loopback HTTP to the
// in-process FakeProviderServer and the real built-in tools in a temporary workspace. Each step
// rebuilds the request from the growing conversation, streams, parses, runs a tool and emits
// events. CPU time is the benchmark thread's (ralph's side; the fake server's threads are not
// counted); user_us / sys_us split it per step. The `_Store` variant records the run as `ralph
// run` does (loop::StoreJournal into a SQLite session store on the temp folder's file system):
// each 10-step run is one attempt, started and finished in the record, every model and tool call
// written before the agent goes on. Its difference from the plain one is the store's share of a
// turn, on the same thread.

#include "counting_sink.h"
#include "fake_provider/fake_provider_server.h"
#include "journal_observer.h"
#include "temp_workspace.h"
#include "thread_cpu.h"

#include "ralph/agent/react_agent.h"
#include "ralph/core/clock.h"
#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/loop/store_journal.h"
#include "ralph/store/sqlite_session_store.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/tools/process_runner.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <memory>
#include <optional>
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

void run_turns(benchmark::State& state, bool with_store) {
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

  const TempWorkspace record_dir;
  std::unique_ptr<store::SqliteSessionStore> db;
  std::unique_ptr<loop::StoreJournal> journal;
  if (with_store) {
    auto opened = store::SqliteSessionStore::open(record_dir.root() / ".ralph" / "ralph.db");
    if (!opened) {
      state.SkipWithError(opened.error().message.c_str());
      return;
    }
    db = std::move(*opened);
    store::SessionRow session;
    session.id = "bench-session";
    session.goal = "Fix the parser.";
    session.model = "openai-compat/bench-model";
    session.created_at = "2026-11-23T10:00:00.000Z";
    session.updated_at = session.created_at;
    if (auto created = db->create_session(session); !created) {
      state.SkipWithError(created.error().message.c_str());
      return;
    }
    Redactor redactor; // as a run has one: its API key, so every record is scanned for it
    redactor.add("sk-bench-0123456789abcdefghijklmnop");
    journal = std::make_unique<loop::StoreJournal>(*db, session, redactor, nullptr, sink);
  }
  std::optional<JournalObserver> recorder;
  if (journal) {
    recorder.emplace(*journal);
  }
  agent::AttemptObserver& observer =
      recorder ? static_cast<agent::AttemptObserver&>(*recorder) : sink;

  const auto [user_before, sys_before] = thread_cpu_us();
  int iteration = 0;
  for (auto _ : state) {
    for (const testing::FakeTurn& turn : turns) {
      server.push(turn);
    }
    agent::ReactAgent agent(**provider, registry, {.workspace = workspace.root()},
                            {llm::ProviderKind::openai_compat, "bench-model"},
                            {.max_steps = k_steps});
    std::vector<Message> conversation{{.role = Role::user, .content = "Fix the parser."}};
    ++iteration;
    if (journal) {
      recorder->begin();
      journal->attempt_started(iteration, conversation);
    }
    const agent::AgentOutcome outcome = agent.run(conversation, cancel, observer, sink);
    if (outcome.stop != agent::AgentStop::answered || outcome.steps != k_steps) {
      state.SkipWithError(outcome.error ? outcome.error->message.c_str() : "no answer");
      return;
    }
    if (journal) {
      loop::AttemptRecord attempt{.iteration = iteration,
                                  .answer = outcome.answer,
                                  .stop = outcome.stop,
                                  .steps = outcome.steps,
                                  .tool_calls = k_steps - 1};
      journal->attempt_finished(attempt, {}, recorder->counters(), iteration, std::nullopt);
      if (const auto failure = journal->failure()) {
        state.SkipWithError(failure->message.c_str());
        return;
      }
    }
  }
  const auto [user_after, sys_after] = thread_cpu_us();
  const double steps = static_cast<double>(state.iterations()) * k_steps;
  state.counters["per_step"] =
      benchmark::Counter(steps, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["user_us"] = (user_after - user_before) / steps;
  state.counters["sys_us"] = (sys_after - sys_before) / steps;
}

void BM_AgentTurn_OpenAiLoopback(benchmark::State& state) {
  run_turns(state, false);
}
BENCHMARK(BM_AgentTurn_OpenAiLoopback)->Unit(benchmark::kMicrosecond);

void BM_AgentTurn_OpenAiLoopback_Store(benchmark::State& state) {
  run_turns(state, true);
}
BENCHMARK(BM_AgentTurn_OpenAiLoopback_Store)->Unit(benchmark::kMicrosecond);

} // namespace
} // namespace ralph::bench
