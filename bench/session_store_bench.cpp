// What recording a run costs per step: the SQLite session store's one-transaction writes, in a
// database on the temp folder's file system. Steps commit to the WAL without an fsync (since
// issue 13; before, each one fsynced the WAL). Wall time is what a run waits; CPU time is ralph's
// own work. The argument is the size of the session's resume point (the conversation an attempt
// starts from, which grows with the run): a step's cost must not grow with it.
// The PostgreSQL store (issue 14) runs the same steps against the server RALPH_BENCH_PG_URL
// names (docs/performance.md: a loopback server with fsync on); without it those benchmarks skip.

#include "temp_workspace.h"

#include "ralph/store/pg_session_store.h"
#include "ralph/store/sqlite_session_store.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

namespace ralph::bench {
namespace {

// A session id no earlier run of the benchmark used (a server's database outlives the run).
std::string fresh_id() {
  return "bench-" + std::to_string(std::random_device{}()) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

store::SessionRow session_row(std::size_t resume_bytes) {
  store::SessionRow row;
  row.id = fresh_id();
  row.goal = "make the failing tests pass";
  row.workspace = "/tmp";
  row.model = "openai/gpt-4.1";
  row.created_at = "2026-11-23T10:00:00.000Z";
  row.updated_at = row.created_at;
  row.config_json = std::string(4000, 'c');
  row.resume_json = std::string(resume_bytes, 'r');
  return row;
}

// One agent step as the journal writes it: the model call (with the session's counters), then
// the tool call with a 2 KB result.
enum class Backend { sqlite, postgresql };

// The store under test, or null (the benchmark skipped, saying why).
std::unique_ptr<store::SessionStore> open_backend(benchmark::State& state, Backend backend,
                                                  const TempWorkspace& dir) {
  Result<std::unique_ptr<store::SessionStore>> opened = tl::unexpected(Error{});
  if (backend == Backend::sqlite) {
    auto file = store::SqliteSessionStore::open(dir.root() / ".ralph" / "ralph.db");
    opened = file ? Result<std::unique_ptr<store::SessionStore>>(std::move(*file))
                  : tl::unexpected(file.error());
  } else {
    const char* url = std::getenv("RALPH_BENCH_PG_URL");
    if (url == nullptr) {
      state.SkipWithError("RALPH_BENCH_PG_URL is not set (docs/performance.md)");
      return nullptr;
    }
    auto server = store::PgSessionStore::open(url, std::chrono::seconds(5));
    opened = server ? Result<std::unique_ptr<store::SessionStore>>(std::move(*server))
                    : tl::unexpected(server.error());
  }
  if (!opened) {
    state.SkipWithError(opened.error().message.c_str());
    return nullptr;
  }
  return std::move(*opened);
}

void BM_SessionStore_Step(benchmark::State& state, Backend backend) {
  TempWorkspace dir;
  const auto opened = open_backend(state, backend, dir);
  if (!opened) {
    return;
  }
  store::SessionStore& db = *opened;
  store::SessionRow session = session_row(static_cast<std::size_t>(state.range(0)));
  (void)db.create_session(session);
  store::ModelCallRow call;
  call.session_id = session.id;
  call.iteration = 1;
  call.model = session.model;
  call.input_tokens = 5000;
  call.output_tokens = 200;
  store::ToolCallRow tool;
  tool.session_id = session.id;
  tool.iteration = 1;
  tool.name = "shell";
  tool.arguments = R"({"command":"make check"})";
  tool.result = std::string(2000, 'o');
  tool.exit_code = 0;
  int step = 0;
  for (auto _ : state) {
    ++step;
    call.step = step;
    session.input_tokens += call.input_tokens;
    tool.seq = step;
    if (!db.add_model_call(call, session) || !db.add_tool_call(tool)) {
      state.SkipWithError("write failed");
      return;
    }
  }
}
BENCHMARK_CAPTURE(BM_SessionStore_Step, sqlite, Backend::sqlite)
    ->Arg(20'000)
    ->Arg(400'000)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SessionStore_Step, postgresql, Backend::postgresql)
    ->Arg(20'000)
    ->Arg(400'000)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);

// The end of an attempt: the attempt row, two verdicts (one with 20 KB of command output) and
// the whole session row, in one transaction that reaches the disk (fsync in both stores).
void BM_SessionStore_FinishAttempt(benchmark::State& state, Backend backend) {
  TempWorkspace dir;
  const auto opened = open_backend(state, backend, dir);
  if (!opened) {
    return;
  }
  store::SessionStore& db = *opened;
  store::SessionRow session = session_row(20'000);
  (void)db.create_session(session);
  store::AttemptRow attempt;
  attempt.session_id = session.id;
  attempt.finished = true;
  attempt.start_json = std::string(20'000, 's');
  attempt.messages_json = std::string(8'000, 'm');
  store::VerdictRow command;
  command.session_id = session.id;
  command.seq = 1;
  command.verifier = "command: make check";
  command.output = std::string(20'000, 'o');
  store::VerdictRow judge = command;
  judge.seq = 2;
  judge.verifier = "judge";
  judge.output.clear();
  int iteration = 0;
  for (auto _ : state) {
    ++iteration;
    attempt.iteration = iteration;
    command.iteration = iteration;
    judge.iteration = iteration;
    session.iterations = iteration;
    if (!db.finish_attempt(attempt, {command, judge}, session)) {
      state.SkipWithError("write failed");
      return;
    }
  }
}
BENCHMARK_CAPTURE(BM_SessionStore_FinishAttempt, sqlite, Backend::sqlite)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SessionStore_FinishAttempt, postgresql, Backend::postgresql)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);

} // namespace
} // namespace ralph::bench
