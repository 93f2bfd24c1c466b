#include "support/pg_cluster.h"
#include "support/temp_dir.h"

#include "ralph/store/open_session_store.h"
#include "ralph/store/sqlite_session_store.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <exception>
#include <fstream>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ralph::store {
namespace {

// Forks `count` children (the test has no threads, so fork is safe) that wait on a pipe until
// all exist, then run `work(index)` at once. Each child reports `work`'s error text, empty for
// success, through its exit status and a file; returns every child's complaint.
std::vector<std::string> run_children(const testing::TempDir& dir, int count,
                                      const std::function<std::string(int)>& work) {
  int start[2];
  if (pipe(start) != 0) {
    return {"pipe failed"};
  }
  std::vector<pid_t> children;
  for (int index = 0; index < count; ++index) {
    const pid_t child = fork();
    if (child == 0) {
      close(start[1]);
      char byte = 0;
      while (read(start[0], &byte, 1) > 0) {
      } // EOF: the parent closed its end, every child exists
      std::string error;
      try {
        error = work(index);
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (!error.empty()) {
        std::ofstream(dir.path() / fmt::format("child-{}.err", index)) << error;
      }
      _exit(error.empty() ? 0 : 1); // no gtest or static teardown in the child
    }
    children.push_back(child);
  }
  close(start[0]);
  close(start[1]); // go
  std::vector<std::string> complaints;
  for (int index = 0; index < count; ++index) {
    int status = 0;
    waitpid(children[static_cast<std::size_t>(index)], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      complaints.push_back(fmt::format("child {} (status {}): {}", index, status,
                                       dir.read(fmt::format("child-{}.err", index))));
    }
  }
  return complaints;
}

SessionRow make_session(std::string id) {
  SessionRow s;
  s.id = std::move(id);
  s.created_at = "2026-01-01T00:00:00.000Z";
  s.updated_at = s.created_at;
  return s;
}

constexpr int k_children = 4;
constexpr int k_rounds = 40;

Result<std::unique_ptr<SessionStore>> open_at(const std::string& location) {
  return open_session_store(location, std::chrono::seconds(10));
}

// Children writing their own sessions and one they share at once, in the store at `location`
// (a SQLite file or a PostgreSQL database).
void several_processes_lose_nothing(const testing::TempDir& dir, const std::string& path) {
  {
    auto store = open_at(path);
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE((*store)->create_session(make_session("shared")));
  } // closed before forking: a connection must never cross fork()

  const auto complaints = run_children(dir, k_children, [&](int index) -> std::string {
    auto store = open_at(path);
    if (!store) {
      return store.error().message;
    }
    SessionRow own = make_session(fmt::format("child-{}", index));
    if (auto created = (*store)->create_session(own); !created) {
      return created.error().message;
    }
    for (int round = 1; round <= k_rounds; ++round) {
      ToolCallRow tool;
      tool.session_id = "shared";
      tool.iteration = index + 1;
      tool.seq = round;
      tool.name = "shell";
      tool.result = std::string(static_cast<std::size_t>(round) * 100, 'r');
      if (auto added = (*store)->add_tool_call(tool); !added) {
        return added.error().message;
      }
      ModelCallRow call;
      call.session_id = own.id;
      call.iteration = 1;
      call.step = round;
      own.input_tokens += 10;
      own.updated_at = fmt::format("2026-01-01T00:00:{:02}.000Z", round);
      if (auto added = (*store)->add_model_call(call, own); !added) {
        return added.error().message;
      }
      if (round % 10 == 0) {
        AttemptRow attempt;
        attempt.session_id = own.id;
        attempt.iteration = round / 10;
        attempt.finished = true;
        own.iterations = round / 10;
        if (auto finished = (*store)->finish_attempt(attempt, {}, own); !finished) {
          return finished.error().message;
        }
      }
    }
    return {};
  });
  EXPECT_THAT(complaints, ::testing::IsEmpty());

  auto store = open_at(path);
  ASSERT_TRUE(store) << store.error().message;
  auto shared = (*store)->load("shared");
  ASSERT_TRUE(shared && *shared);
  const auto& tools = (*shared)->tool_calls;
  ASSERT_EQ(tools.size(), static_cast<std::size_t>(k_children * k_rounds));
  for (std::size_t i = 0; i < tools.size(); ++i) {
    EXPECT_EQ(tools[i].iteration, static_cast<int>(i) / k_rounds + 1);
    EXPECT_EQ(tools[i].seq, static_cast<int>(i) % k_rounds + 1);
    EXPECT_EQ(tools[i].result.size(), static_cast<std::size_t>(tools[i].seq) * 100);
  }
  for (int index = 0; index < k_children; ++index) {
    auto own = (*store)->load(fmt::format("child-{}", index));
    ASSERT_TRUE(own && *own) << index;
    EXPECT_EQ((*own)->model_calls.size(), static_cast<std::size_t>(k_rounds));
    EXPECT_EQ((*own)->attempts.size(), static_cast<std::size_t>(k_rounds / 10));
    EXPECT_EQ((*own)->session.input_tokens, 10 * k_rounds);
    EXPECT_EQ((*own)->session.iterations, k_rounds / 10);
  }
}

TEST(SqliteSessionStoreProcesses, SeveralProcessesWritingOneDatabaseAtOnceLoseNothing) {
  testing::TempDir dir;
  several_processes_lose_nothing(dir, (dir.path() / ".ralph" / "ralph.db").string());
}

TEST(PgSessionStoreProcesses, SeveralProcessesWritingOneDatabaseAtOnceLoseNothing) {
  testing::PgCluster& cluster = testing::PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  testing::TempDir dir;
  several_processes_lose_nothing(dir, cluster.fresh_database());
}

TEST(SqliteSessionStoreProcesses, ProcessesCreatingTheFileAtOnceAllGetTheSchema) {
  testing::TempDir dir;
  const auto path = dir.path() / "new" / "ralph.db";
  const auto complaints = run_children(dir, k_children, [&](int index) -> std::string {
    auto store = SqliteSessionStore::open(path);
    if (!store) {
      return store.error().message;
    }
    auto created = (*store)->create_session(make_session(fmt::format("child-{}", index)));
    return created ? std::string() : created.error().message;
  });
  EXPECT_THAT(complaints, ::testing::IsEmpty());
  auto store = SqliteSessionStore::open(path);
  ASSERT_TRUE(store) << store.error().message;
  auto listed = (*store)->list_sessions();
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), static_cast<std::size_t>(k_children));
}

// `ralph batch` runs many sessions in one process on a few threads, all recording through one
// store. Reads (list, load) interleave with the writes, as a live display would make them.
TEST(SqliteSessionStoreThreads, SeveralThreadsSharingOneStoreLoseNothing) {
  testing::TempDir dir;
  auto opened = SqliteSessionStore::open(dir.path() / "ralph.db");
  ASSERT_TRUE(opened) << opened.error().message;
  SessionStore& store = **opened;
  constexpr int k_threads = 8;
  constexpr int k_steps = 60;
  std::vector<std::string> complaints(k_threads);
  std::vector<std::thread> threads;
  for (int index = 0; index < k_threads; ++index) {
    threads.emplace_back([&store, &complaints, index] {
      std::string& complaint = complaints[static_cast<std::size_t>(index)];
      const auto check = [&complaint](const Result<void>& written) {
        if (!written && complaint.empty()) {
          complaint = written.error().message;
        }
      };
      SessionRow own = make_session(fmt::format("thread-{}", index));
      check(store.create_session(own));
      for (int step = 1; step <= k_steps; ++step) {
        ModelCallRow call;
        call.session_id = own.id;
        call.iteration = 1;
        call.step = step;
        own.input_tokens += 10;
        check(store.add_model_call(call, own));
        ToolCallRow tool;
        tool.session_id = own.id;
        tool.iteration = 1;
        tool.seq = step;
        tool.result = fmt::format("{}/{}", index, step);
        check(store.add_tool_call(tool));
        if (step % 20 == 0) {
          const auto listed = store.list_sessions();
          const auto loaded = store.load(own.id);
          if ((!listed || !loaded || !*loaded) && complaint.empty()) {
            complaint = fmt::format("read failed at step {}", step);
          }
        }
      }
      AttemptRow attempt;
      attempt.session_id = own.id;
      attempt.iteration = 1;
      attempt.finished = true;
      own.iterations = 1;
      check(store.finish_attempt(attempt, {}, own));
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  EXPECT_THAT(complaints, ::testing::Each(::testing::IsEmpty()));
  for (int index = 0; index < k_threads; ++index) {
    auto own = store.load(fmt::format("thread-{}", index));
    ASSERT_TRUE(own && *own) << index;
    const SessionRecord& record = **own;
    ASSERT_EQ(record.model_calls.size(), static_cast<std::size_t>(k_steps)) << index;
    ASSERT_EQ(record.tool_calls.size(), static_cast<std::size_t>(k_steps)) << index;
    for (int step = 1; step <= k_steps; ++step) {
      EXPECT_EQ(record.tool_calls[static_cast<std::size_t>(step - 1)].result,
                fmt::format("{}/{}", index, step));
    }
    EXPECT_EQ(record.session.input_tokens, 10 * k_steps);
    EXPECT_EQ(record.attempts.size(), 1u);
  }
}

// Many `ralph` processes recording into one database at once, each opening it (the WAL switch
// and the schema check), writing its steps, finishing its attempt and closing (the last one out
// checkpoints). Before, every step held the write lock through an fsync and waiters retried
// under SQLite's busy timeout (pauses growing to 100 ms, newcomers first): about a quarter of
// these processes starved past 10 s with "database is locked" although the file was never stuck.
TEST(SqliteSessionStoreProcesses, ThreeHundredProcessesWritingAtOnceAllGetTheirTurn) {
  testing::TempDir dir;
  const auto path = dir.path() / ".ralph" / "ralph.db";
  constexpr int k_processes = 300;
  constexpr int k_steps = 100;
  const auto complaints = run_children(dir, k_processes, [&](int index) -> std::string {
    SessionRow own = make_session(fmt::format("process-{}", index));
    for (int part = 0; part < 2; ++part) { // opened twice, as a run and its resume would
      auto store = SqliteSessionStore::open(path);
      if (!store) {
        return store.error().message;
      }
      if (part == 0) {
        if (auto created = (*store)->create_session(own); !created) {
          return created.error().message;
        }
      }
      for (int step = part * k_steps / 2 + 1; step <= (part + 1) * k_steps / 2; ++step) {
        ModelCallRow call;
        call.session_id = own.id;
        call.iteration = 1;
        call.step = step;
        own.input_tokens += 10;
        if (auto added = (*store)->add_model_call(call, own); !added) {
          return added.error().message;
        }
        ToolCallRow tool;
        tool.session_id = own.id;
        tool.iteration = 1;
        tool.seq = step;
        tool.result = std::string(1000, 'r');
        if (auto added = (*store)->add_tool_call(tool); !added) {
          return added.error().message;
        }
      }
      AttemptRow attempt;
      attempt.session_id = own.id;
      attempt.iteration = part + 1;
      attempt.finished = true;
      own.iterations = part + 1;
      if (auto finished = (*store)->finish_attempt(attempt, {}, own); !finished) {
        return finished.error().message;
      }
    }
    return {};
  });
  EXPECT_THAT(complaints, ::testing::IsEmpty());

  auto store = SqliteSessionStore::open(path);
  ASSERT_TRUE(store) << store.error().message;
  for (int index = 0; index < k_processes; ++index) {
    auto own = (*store)->load(fmt::format("process-{}", index));
    ASSERT_TRUE(own && *own) << index;
    EXPECT_EQ((*own)->model_calls.size(), static_cast<std::size_t>(k_steps)) << index;
    EXPECT_EQ((*own)->tool_calls.size(), static_cast<std::size_t>(k_steps)) << index;
    EXPECT_EQ((*own)->attempts.size(), 2u) << index;
    EXPECT_EQ((*own)->session.input_tokens, 10 * k_steps) << index;
  }
}

} // namespace
} // namespace ralph::store
