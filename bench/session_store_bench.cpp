// What recording a run costs per step: the SQLite session store's one-transaction writes, in a
// database on the temp folder's file system. Steps commit to the WAL without an fsync (since
// issue 13; before, each one fsynced the WAL). Wall time is what a run waits; CPU time is ralph's
// own work. The argument is the size of the session's resume point (the conversation an attempt
// starts from, which grows with the run): a step's cost must not grow with it.

#include "temp_workspace.h"

#include "ralph/store/sqlite_session_store.h"

#include <benchmark/benchmark.h>

#include <string>

namespace ralph::bench {
namespace {

store::SessionRow session_row(std::size_t resume_bytes) {
  store::SessionRow row;
  row.id = "bench-session";
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
void BM_SessionStore_Step(benchmark::State& state) {
  TempWorkspace dir;
  auto opened = store::SqliteSessionStore::open(dir.root() / ".ralph" / "ralph.db");
  if (!opened) {
    state.SkipWithError(opened.error().message.c_str());
    return;
  }
  store::SqliteSessionStore& db = **opened;
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
BENCHMARK(BM_SessionStore_Step)
    ->Arg(20'000)
    ->Arg(400'000)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);

} // namespace
} // namespace ralph::bench
