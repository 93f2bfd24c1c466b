#include "support/named_process.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"

#include "ralph/core/host_name.h"
#include "ralph/store/open_session_store.h"
#include "ralph/store/pg_session_store.h"
#include "ralph/store/sqlite_session_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace ralph::store {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Every field, so EXPECT_EQ compares (and prints) whole rows.
auto fields(const SessionRow& r) {
  return std::tie(r.id, r.goal, r.workspace, r.model, r.status, r.reason, r.answer, r.created_at,
                  r.updated_at, r.config_json, r.baseline_json, r.resume_json, r.iterations,
                  r.best_iteration, r.input_tokens, r.output_tokens, r.cost_usd, r.cost_known,
                  r.elapsed_ms, r.owner_pid, r.owner_host, r.verified, r.usage_estimated, r.kind,
                  r.parent_id);
}
auto fields(const AttemptRow& r) {
  return std::tie(r.session_id, r.iteration, r.finished, r.started_at, r.finished_at, r.start_json,
                  r.messages_json, r.answer, r.stop, r.steps, r.tool_calls, r.input_tokens,
                  r.output_tokens, r.duration_ms, r.verified, r.skip_reason, r.passed, r.feedback);
}
auto fields(const ModelCallRow& r) {
  return std::tie(r.session_id, r.iteration, r.step, r.model, r.input_tokens, r.output_tokens,
                  r.stop_reason, r.at);
}
auto fields(const ToolCallRow& r) {
  return std::tie(r.session_id, r.iteration, r.seq, r.call_id, r.name, r.arguments, r.result,
                  r.exit_code, r.is_error, r.changed_workspace, r.duration_ms, r.at);
}
auto fields(const VerdictRow& r) {
  return std::tie(r.session_id, r.iteration, r.seq, r.verifier, r.kind, r.result, r.category,
                  r.feedback, r.reasoning, r.policy, r.model, r.input_tokens, r.output_tokens,
                  r.duration_ms, r.evidence_json, r.output, r.at);
}

template <typename Row>
void expect_rows(const std::vector<Row>& got, const std::vector<Row>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(fields(got[i]), fields(want[i])) << "row " << i;
  }
}

SessionRow make_session(std::string id, std::string created_at) {
  SessionRow s;
  s.id = std::move(id);
  s.goal = "make the tests pass";
  s.workspace = "/ws";
  s.model = "openai/gpt-test";
  s.created_at = created_at;
  s.updated_at = std::move(created_at);
  s.config_json = R"({"max_iterations":5})";
  return s;
}

// The contract of SessionStore, one suite run against each backend: a fresh SQLite file, and a
// fresh database on the PostgreSQL server the tests share.
class SessionStoreContract : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    if (GetParam() == "postgresql") {
      ralph::testing::PgCluster& cluster = ralph::testing::PgCluster::shared();
      RALPH_REQUIRE_PG(cluster);
      m_location = cluster.fresh_database();
    } else {
      m_location = (m_dir.path() / ".ralph" / "ralph.db").string();
    }
  }

  // A new store object (a new connection) on the same file or database.
  std::unique_ptr<SessionStore> open() const {
    auto store = open_session_store(m_location, std::chrono::seconds(5));
    if (!store) {
      ADD_FAILURE() << store.error().message;
      return nullptr;
    }
    return std::move(*store);
  }
  bool postgres() const { return GetParam() == "postgresql"; }
  // How messages name the store: the file, or the URL (the test server's has no password).
  const std::string& location() const { return m_location; }

private:
  ralph::testing::TempDir m_dir;
  std::string m_location;
};

INSTANTIATE_TEST_SUITE_P(Backends, SessionStoreContract, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& backend) { return backend.param; });

// A pid that no process has: a child that has exited and been reaped.
// A session with two attempts (one finished with verdicts, one running), model and tool calls.
struct FullSession {
  SessionRow session = make_session("s-full", "2026-01-01T00:00:00.000Z");
  std::vector<AttemptRow> attempts;
  std::vector<ModelCallRow> model_calls;
  std::vector<ToolCallRow> tool_calls;
  std::vector<VerdictRow> verdicts;

  FullSession() {
    AttemptRow first;
    first.session_id = session.id;
    first.iteration = 1;
    first.started_at = "2026-01-01T00:00:01.000Z";
    first.start_json = R"([{"role":"user","content":"go"}])";
    attempts.push_back(first);

    for (int step = 1; step <= 2; ++step) {
      ModelCallRow call;
      call.session_id = session.id;
      call.iteration = 1;
      call.step = step;
      call.model = session.model;
      call.input_tokens = 100 * step;
      call.output_tokens = 10 * step;
      call.stop_reason = step == 1 ? "tool_use" : "end_turn";
      call.at = "2026-01-01T00:00:0" + std::to_string(step + 1) + ".000Z";
      model_calls.push_back(call);
    }
    ToolCallRow shell;
    shell.session_id = session.id;
    shell.iteration = 1;
    shell.seq = 1;
    shell.call_id = "call_1";
    shell.name = "shell";
    shell.arguments = R"({"command":"make test"})";
    shell.result = "FAILED: 1 test";
    shell.exit_code = 2;
    shell.is_error = true;
    shell.changed_workspace = true;
    shell.duration_ms = 1234;
    shell.at = "2026-01-01T00:00:02.500Z";
    ToolCallRow read = shell;
    read.seq = 2;
    read.call_id = "call_2";
    read.name = "read_file";
    read.arguments = R"({"path":"a.txt"})";
    read.result = "";
    read.exit_code = std::nullopt;
    read.is_error = false;
    read.changed_workspace = false;
    tool_calls = {shell, read};

    VerdictRow command;
    command.session_id = session.id;
    command.iteration = 1;
    command.seq = 1;
    command.verifier = "command: make test";
    command.kind = "command";
    command.result = Outcome::fail;
    command.category = "test_failed";
    command.feedback = "1 test failed";
    command.policy = ErrorPolicy::fail_closed;
    command.duration_ms = 800;
    command.evidence_json = R"({"exit_code":2,"tail":"..."})";
    command.output = std::string(2 * 1024 * 1024, 'x') + "\nend";
    command.at = "2026-01-01T00:00:05.000Z";
    VerdictRow judge;
    judge.session_id = session.id;
    judge.iteration = 1;
    judge.seq = 2;
    judge.verifier = "judge";
    judge.kind = "judge";
    judge.result = Outcome::pass;
    judge.reasoning = "looks right";
    judge.model = "anthropic/judge";
    judge.input_tokens = 500;
    judge.output_tokens = 50;
    judge.at = "2026-01-01T00:00:06.000Z";
    verdicts = {command, judge};

    AttemptRow second;
    second.session_id = session.id;
    second.iteration = 2;
    second.started_at = "2026-01-01T00:00:07.000Z";
    attempts.push_back(second);
  }

  // Records everything through `store` the way the loop does; returns the finished attempts.
  void record(SessionStore& store) {
    ASSERT_TRUE(store.create_session(session));
    session.iterations = 1;
    ASSERT_TRUE(store.save_attempt(attempts[0]));
    for (const auto& call : model_calls) {
      session.input_tokens += call.input_tokens;
      session.output_tokens += call.output_tokens;
      session.updated_at = call.at;
      auto added = store.add_model_call(call, session);
      ASSERT_TRUE(added) << added.error().message;
    }
    for (const auto& call : tool_calls) {
      auto added = store.add_tool_call(call);
      ASSERT_TRUE(added) << added.error().message;
    }
    attempts[0].finished = true;
    attempts[0].finished_at = "2026-01-01T00:00:06.500Z";
    attempts[0].messages_json = R"([{"role":"assistant","content":"done"}])";
    attempts[0].answer = "done";
    attempts[0].stop = "end_turn";
    attempts[0].steps = 2;
    attempts[0].tool_calls = 2;
    attempts[0].input_tokens = 300;
    attempts[0].output_tokens = 30;
    attempts[0].duration_ms = 5500;
    attempts[0].verified = true;
    attempts[0].feedback = "1 test failed";
    session.resume_json = R"({"feedback":"1 test failed"})";
    session.updated_at = "2026-01-01T00:00:06.500Z";
    auto finished = store.finish_attempt(attempts[0], verdicts, session);
    ASSERT_TRUE(finished) << finished.error().message;
    session.iterations = 2;
    ASSERT_TRUE(store.save_attempt(attempts[1]));
    ASSERT_TRUE(store.update_session(session));
  }

  void expect_loaded(SessionStore& store) const {
    auto loaded = store.load(session.id);
    ASSERT_TRUE(loaded) << loaded.error().message;
    ASSERT_TRUE(loaded->has_value());
    const SessionRecord& record = **loaded;
    EXPECT_EQ(fields(record.session), fields(session));
    expect_rows(record.attempts, attempts);
    expect_rows(record.model_calls, model_calls);
    expect_rows(record.tool_calls, tool_calls);
    expect_rows(record.verdicts, verdicts);
  }
};

TEST_P(SessionStoreContract, RecordsAWholeSessionAndLoadsItBack) {
  auto store = open();
  ASSERT_TRUE(store);
  FullSession full;
  full.record(*store);
  full.expect_loaded(*store);
  auto loaded = store->load(full.session.id);
  ASSERT_TRUE(loaded && *loaded);
  EXPECT_FALSE((*loaded)->tool_calls[1].exit_code.has_value());
  EXPECT_EQ((*loaded)->tool_calls[0].exit_code, 2);
  EXPECT_EQ((*loaded)->verdicts[0].output.size(), 2u * 1024 * 1024 + 4);
  EXPECT_TRUE((*loaded)->verdicts[1].evidence_json.empty());
}

TEST_P(SessionStoreContract, ReopeningTheFileSeesEverything) {
  FullSession full;
  {
    auto store = open();
    ASSERT_TRUE(store);
    full.record(*store);
  }
  auto reopened = open();
  ASSERT_TRUE(reopened);
  full.expect_loaded(*reopened);
}

TEST_P(SessionStoreContract, AnotherConnectionSeesEachCommitAtOnce) {
  auto writer = open();
  auto reader = open();
  ASSERT_TRUE(writer && reader);
  ASSERT_TRUE(writer->create_session(make_session("s-1", "2026-01-01T00:00:00.000Z")));
  auto found = reader->find_session("s-1");
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->has_value());
}

TEST_P(SessionStoreContract, KeepsUnicodeControlBytesAndEmptyStrings) {
  auto store = open();
  ASSERT_TRUE(store);
  SessionRow session = make_session("s-ünï", "2026-01-01T00:00:00.000Z");
  session.goal = "réparer 🐛 — 修复 \t\r\n\x01\x7f";
  session.answer = std::string("not utf-8: \xff\xfe\xc3(", 15);
  session.reason = std::string("nul \0 inside", 12);
  session.config_json = "";
  session.cost_usd = 0.0123456789;
  session.cost_known = false;
  session.owner_pid = 4242;
  session.owner_host = "build-7";
  ASSERT_TRUE(store->create_session(session));
  auto found = store->find_session(session.id);
  ASSERT_TRUE(found && *found);
  SessionRow expected = session;
  if (postgres()) {
    // PostgreSQL's text holds neither NUL nor invalid UTF-8: each such byte reads back as
    // U+FFFD rather than failing the write (and the run).
    expected.answer = "not utf-8: \uFFFD\uFFFD\uFFFD(";
    expected.reason = "nul \uFFFD inside";
  }
  EXPECT_EQ(fields(**found), fields(expected));
}

TEST_P(SessionStoreContract, FindsNothingForAnUnknownId) {
  auto store = open();
  ASSERT_TRUE(store);
  auto found = store->find_session("nope");
  ASSERT_TRUE(found);
  EXPECT_FALSE(found->has_value());
  auto loaded = store->load("nope");
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(loaded->has_value());
  auto removed = store->remove_session("nope");
  ASSERT_TRUE(removed);
  EXPECT_FALSE(*removed);
}

TEST_P(SessionStoreContract, ListsNewestFirstThenByIdDescending) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_session(make_session("a", "2026-01-02T00:00:00.000Z")));
  ASSERT_TRUE(store->create_session(make_session("c", "2026-01-01T00:00:00.000Z")));
  ASSERT_TRUE(store->create_session(make_session("b", "2026-01-02T00:00:00.000Z")));
  ASSERT_TRUE(store->create_session(make_session("d", "2026-01-03T00:00:00.000Z")));
  auto listed = store->list_sessions();
  ASSERT_TRUE(listed);
  std::vector<std::string> ids;
  for (const auto& s : *listed) {
    ids.push_back(s.id);
  }
  EXPECT_THAT(ids, ElementsAre("d", "b", "a", "c"));
}

TEST_P(SessionStoreContract, UpdateKeepsIdAndCreationTime) {
  auto store = open();
  ASSERT_TRUE(store);
  const SessionRow original = make_session("s-1", "2026-01-01T00:00:00.000Z");
  ASSERT_TRUE(store->create_session(original));
  SessionRow changed = original;
  changed.created_at = "2030-01-01T00:00:00.000Z";
  changed.updated_at = "2026-01-01T01:00:00.000Z";
  changed.status = Status::completed;
  changed.answer = "done";
  changed.resume_json = R"({"messages":[]})";
  changed.owner_pid = 0;
  auto updated = store->update_session(changed);
  ASSERT_TRUE(updated) << updated.error().message;
  auto found = store->find_session("s-1");
  ASSERT_TRUE(found && *found);
  changed.created_at = original.created_at;
  EXPECT_EQ(fields(**found), fields(changed));
}

TEST_P(SessionStoreContract, UpdatingAMissingSessionIsAnErrorNamingIt) {
  auto store = open();
  ASSERT_TRUE(store);
  auto updated = store->update_session(make_session("ghost", "2026-01-01T00:00:00.000Z"));
  ASSERT_FALSE(updated);
  EXPECT_EQ(updated.error().kind, ErrorKind::store);
  EXPECT_EQ(updated.error().message, location() + ": update session: no session ghost");
  ModelCallRow call;
  call.session_id = "ghost";
  auto added = store->add_model_call(call, make_session("ghost", "x"));
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().message, location() + ": add model call: no session ghost");
}

TEST_P(SessionStoreContract, AToolCallForAMissingSessionFailsNamingFileAndOperation) {
  auto store = open();
  ASSERT_TRUE(store);
  ToolCallRow call;
  call.session_id = "ghost";
  auto added = store->add_tool_call(call);
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().kind, ErrorKind::store);
  EXPECT_THAT(added.error().message, ::testing::StartsWith(location() + ": insert tool call: "));
  EXPECT_THAT(added.error().message,
              HasSubstr(postgres() ? "violates foreign key constraint" : "FOREIGN KEY constraint"));
  EXPECT_FALSE(added.error().retryable);
}

TEST_P(SessionStoreContract, CreatingASessionTwiceFails) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_session(make_session("s-1", "2026-01-01T00:00:00.000Z")));
  auto again = store->create_session(make_session("s-1", "2026-01-01T00:00:00.000Z"));
  ASSERT_FALSE(again);
  EXPECT_THAT(again.error().message,
              HasSubstr(postgres() ? "create session: session s-1 already exists"
                                   : "create session: UNIQUE constraint failed"));
}

TEST_P(SessionStoreContract, SaveAttemptReplacesTheSameIteration) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_session(make_session("s-1", "2026-01-01T00:00:00.000Z")));
  AttemptRow attempt;
  attempt.session_id = "s-1";
  attempt.iteration = 1;
  attempt.started_at = "t1";
  ASSERT_TRUE(store->save_attempt(attempt));
  attempt.started_at = "t2";
  attempt.finished = true;
  ASSERT_TRUE(store->save_attempt(attempt));
  auto loaded = store->load("s-1");
  ASSERT_TRUE(loaded && *loaded);
  expect_rows((*loaded)->attempts, {attempt});
}

TEST_P(SessionStoreContract, FinishingAnAttemptAgainReplacesItsVerdicts) {
  auto store = open();
  ASSERT_TRUE(store);
  SessionRow session = make_session("s-1", "2026-01-01T00:00:00.000Z");
  ASSERT_TRUE(store->create_session(session));
  AttemptRow attempt;
  attempt.session_id = "s-1";
  attempt.iteration = 1;
  attempt.finished = true;
  VerdictRow verdict;
  verdict.session_id = "s-1";
  verdict.iteration = 1;
  verdict.seq = 1;
  verdict.result = Outcome::fail;
  ASSERT_TRUE(store->finish_attempt(attempt, {verdict, verdict}, session));
  verdict.result = Outcome::pass;
  ASSERT_TRUE(store->finish_attempt(attempt, {verdict}, session));
  auto loaded = store->load("s-1");
  ASSERT_TRUE(loaded && *loaded);
  expect_rows((*loaded)->verdicts, {verdict});
}

TEST_P(SessionStoreContract, AFailedFinishWritesNothing) {
  auto store = open();
  ASSERT_TRUE(store);
  SessionRow session = make_session("s-1", "2026-01-01T00:00:00.000Z");
  ASSERT_TRUE(store->create_session(session));
  AttemptRow attempt;
  attempt.session_id = "s-1";
  attempt.iteration = 1;
  ASSERT_TRUE(store->save_attempt(attempt));

  AttemptRow finished = attempt;
  finished.finished = true;
  VerdictRow good;
  good.session_id = "s-1";
  good.iteration = 1;
  good.seq = 1;
  VerdictRow orphan = good;
  orphan.session_id = "ghost"; // violates the foreign key after the attempt row was written
  SessionRow changed = session;
  changed.status = Status::completed;
  ASSERT_FALSE(store->finish_attempt(finished, {good, orphan}, changed));

  auto loaded = store->load("s-1");
  ASSERT_TRUE(loaded && *loaded);
  expect_rows((*loaded)->attempts, {attempt});
  EXPECT_TRUE((*loaded)->verdicts.empty());
  EXPECT_EQ((*loaded)->session.status, Status::active);
  // The connection is usable after the rollback.
  EXPECT_TRUE(store->finish_attempt(finished, {good}, changed));
}

TEST_P(SessionStoreContract, AModelCallUpdatesTheCountersButNotTheJson) {
  auto store = open();
  ASSERT_TRUE(store);
  SessionRow session = make_session("s-1", "2026-01-01T00:00:00.000Z");
  ASSERT_TRUE(store->create_session(session));
  SessionRow running = session;
  running.updated_at = "2026-01-01T00:01:00.000Z";
  running.iterations = 1;
  running.best_iteration = 1;
  running.input_tokens = 1000;
  running.output_tokens = 100;
  running.cost_usd = 0.5;
  running.cost_known = false;
  running.elapsed_ms = 60'000;
  running.resume_json = R"({"changed":"only in memory"})";
  running.status = Status::failed;
  ModelCallRow call;
  call.session_id = "s-1";
  ASSERT_TRUE(store->add_model_call(call, running));
  auto found = store->find_session("s-1");
  ASSERT_TRUE(found && *found);
  SessionRow expected = running;
  expected.resume_json = session.resume_json;
  expected.status = session.status;
  EXPECT_EQ(fields(**found), fields(expected));
}

TEST_P(SessionStoreContract, RemovingASessionRemovesEverythingRecordedAboutIt) {
  auto store = open();
  ASSERT_TRUE(store);
  FullSession full;
  full.record(*store);
  ASSERT_TRUE(store->create_session(make_session("other", "2026-01-01T00:00:00.000Z")));
  auto removed = store->remove_session(full.session.id);
  ASSERT_TRUE(removed);
  EXPECT_TRUE(*removed);
  auto loaded = store->load(full.session.id);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(loaded->has_value());
  // Re-creating the id starts empty: no orphaned rows came back with it.
  ASSERT_TRUE(store->create_session(full.session));
  loaded = store->load(full.session.id);
  ASSERT_TRUE(loaded && *loaded);
  EXPECT_TRUE((*loaded)->attempts.empty());
  EXPECT_TRUE((*loaded)->model_calls.empty());
  EXPECT_TRUE((*loaded)->tool_calls.empty());
  EXPECT_TRUE((*loaded)->verdicts.empty());
  EXPECT_TRUE(store->find_session("other")->has_value());
}

TEST_P(SessionStoreContract, PruneRemovesOnlyOldSessionsNoLiveProcessOwns) {
  auto store = open();
  ASSERT_TRUE(store);
  const auto add = [&](const std::string& id, const std::string& updated_at, std::int64_t pid,
                       const std::string& host = "") {
    SessionRow s = make_session(id, "2026-01-01T00:00:00.000Z");
    s.updated_at = updated_at;
    s.owner_pid = pid;
    s.owner_host = host;
    ASSERT_TRUE(store->create_session(s));
    ToolCallRow call;
    call.session_id = id;
    ASSERT_TRUE(store->add_tool_call(call));
  };
  const testing::NamedProcess running("ralph");
  const testing::NamedProcess reused("sleep");
  add("old-unowned", "2026-01-01T00:00:00.000Z", 0);
  add("old-dead-owner", "2026-01-02T00:00:00.000Z", testing::dead_pid());
  add("old-impossible-owner", "2026-01-03T00:00:00.000Z", std::int64_t{1} << 40);
  add("old-running", "2026-01-01T00:00:00.000Z", running.pid());
  // The owner died and its pid went to another program: nothing runs the session.
  add("old-reused-pid", "2026-01-05T00:00:00.000Z", reused.pid());
  add("new-unowned", "2026-02-01T00:00:00.000Z", 0);
  add("at-cutoff", "2026-01-15T00:00:00.000Z", 0);
  // A process of another machine cannot be checked from here: its session is kept.
  add("old-other-host", "2026-01-01T00:00:00.000Z", testing::dead_pid(), "another-machine");
  add("old-dead-here", "2026-01-04T00:00:00.000Z", testing::dead_pid(), host_name());

  auto pruned = store->prune("2026-01-15T00:00:00.000Z");
  ASSERT_TRUE(pruned) << pruned.error().message;
  EXPECT_THAT(*pruned, ElementsAre("old-unowned", "old-dead-owner", "old-impossible-owner",
                                   "old-dead-here", "old-reused-pid"));
  auto listed = store->list_sessions();
  ASSERT_TRUE(listed);
  std::vector<std::string> left;
  for (const auto& s : *listed) {
    left.push_back(s.id);
  }
  EXPECT_THAT(left, ::testing::UnorderedElementsAre("old-running", "new-unowned", "at-cutoff",
                                                    "old-other-host"));
  auto again = store->prune("2026-01-15T00:00:00.000Z");
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->empty());
}

TEST_P(SessionStoreContract, KeepsEachSessionsKindAndParent) {
  SessionRow chat = make_session("s-chat", "2026-01-01T00:00:00.000Z");
  chat.kind = SessionKind::chat;
  SessionRow goal = make_session("s-goal", "2026-01-01T00:00:01.000Z");
  goal.kind = SessionKind::goal;
  goal.parent_id = chat.id;
  SessionRow tick = make_session("s-tick", "2026-01-01T00:00:02.000Z");
  tick.kind = SessionKind::heartbeat;
  {
    auto store = open();
    ASSERT_TRUE(store);
    for (const SessionRow& row : {chat, goal, tick}) {
      ASSERT_TRUE(store->create_session(row));
    }
    tick.parent_id = "s-other"; // update_session replaces them like every other field
    ASSERT_TRUE(store->update_session(tick));
  }
  auto reopened = open();
  ASSERT_TRUE(reopened);
  auto listed = reopened->list_sessions();
  ASSERT_TRUE(listed);
  expect_rows(*listed, {tick, goal, chat});
}

TEST_P(SessionStoreContract, StoresOfTheirOwnInThreadsWritingAtOnceLoseNothing) {
  // Each thread is a writer with its own connection, as separate processes are.
  constexpr int k_writers = 6;
  constexpr int k_steps = 25;
  std::vector<std::thread> threads;
  std::vector<std::string> errors(k_writers);
  for (int w = 0; w < k_writers; ++w) {
    threads.emplace_back([&, w] {
      auto store = open_session_store(location(), std::chrono::seconds(5));
      if (!store) {
        errors[static_cast<std::size_t>(w)] = store.error().message;
        return;
      }
      SessionRow session = make_session("w" + std::to_string(w), "2026-01-01T00:00:00.000Z");
      auto done = (*store)->create_session(session);
      for (int step = 1; done && step <= k_steps; ++step) {
        ModelCallRow call;
        call.session_id = session.id;
        call.iteration = 1;
        call.step = step;
        session.input_tokens += step;
        done = (*store)->add_model_call(call, session);
        ToolCallRow tool;
        tool.session_id = session.id;
        tool.iteration = 1;
        tool.seq = step;
        if (done) {
          done = (*store)->add_tool_call(tool);
        }
      }
      if (!done) {
        errors[static_cast<std::size_t>(w)] = done.error().message;
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  for (const auto& e : errors) {
    EXPECT_EQ(e, "");
  }
  auto store = open();
  ASSERT_TRUE(store);
  for (int w = 0; w < k_writers; ++w) {
    auto loaded = store->load("w" + std::to_string(w));
    ASSERT_TRUE(loaded && *loaded) << w;
    ASSERT_EQ((*loaded)->model_calls.size(), std::size_t{k_steps});
    ASSERT_EQ((*loaded)->tool_calls.size(), std::size_t{k_steps});
    for (int step = 1; step <= k_steps; ++step) {
      EXPECT_EQ((*loaded)->model_calls[static_cast<std::size_t>(step - 1)].step, step);
      EXPECT_EQ((*loaded)->tool_calls[static_cast<std::size_t>(step - 1)].seq, step);
    }
    EXPECT_EQ((*loaded)->session.input_tokens, k_steps * (k_steps + 1) / 2);
  }
}

TEST_P(SessionStoreContract, ThreadsSharingOneStoreLoseNothing) {
  auto store = open();
  ASSERT_TRUE(store);
  SessionRow session = make_session("shared", "2026-01-01T00:00:00.000Z");
  ASSERT_TRUE(store->create_session(session));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 1; i <= 20; ++i) {
        ToolCallRow tool;
        tool.session_id = session.id;
        tool.iteration = t + 1;
        tool.seq = i;
        if (!store->add_tool_call(tool)) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(failures.load(), 0);
  auto loaded = store->load(session.id);
  ASSERT_TRUE(loaded && *loaded);
  EXPECT_EQ((*loaded)->tool_calls.size(), 80u);
}

TEST_P(SessionStoreContract, AStepWrittenAgainByAResumedAttemptIsKept) {
  // A resumed run starts a killed attempt over: the same iteration and step numbers again.
  auto store = open();
  ASSERT_TRUE(store);
  SessionRow session = make_session("s-1", "2026-01-01T00:00:00.000Z");
  ASSERT_TRUE(store->create_session(session));
  ModelCallRow call;
  call.session_id = session.id;
  call.iteration = 1;
  call.step = 1;
  call.at = "first";
  ASSERT_TRUE(store->add_model_call(call, session));
  call.at = "again";
  ASSERT_TRUE(store->add_model_call(call, session));
  ToolCallRow tool;
  tool.session_id = session.id;
  tool.iteration = 1;
  tool.seq = 1;
  ASSERT_TRUE(store->add_tool_call(tool));
  ASSERT_TRUE(store->add_tool_call(tool));
  auto loaded = store->load(session.id);
  ASSERT_TRUE(loaded && *loaded);
  ASSERT_EQ((*loaded)->model_calls.size(), 2u);
  EXPECT_EQ((*loaded)->model_calls[0].at, "first");
  EXPECT_EQ((*loaded)->model_calls[1].at, "again");
  EXPECT_EQ((*loaded)->tool_calls.size(), 2u);
}

TEST(SessionStoreSchema, EachBackendReportsTheSchemaVersionItWrites) {
  EXPECT_GE(SqliteSessionStore::schema_version(), 1);
  EXPECT_GE(PgSessionStore::schema_version(), 1);
}

} // namespace
} // namespace ralph::store
