// The store's two durability tiers, observed where they happen: a VFS that counts the fsyncs
// SQLite asks for, and a process killed with SIGKILL between steps.
#include "support/temp_dir.h"

#include "ralph/store/sqlite_session_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <csignal>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace ralph::store {
namespace {

// The default VFS with every xSync of a WAL file counted: in WAL mode a commit reaches the disk
// only by syncing the WAL. WAL files are the default VFS's own (same size and layout); only their
// method table is swapped for a copy whose xSync counts first. (The database file keeps its
// own table: the unix VFS recognises it by that pointer for shared memory.)
class SyncCountingVfs {
public:
  SyncCountingVfs() {
    s_base = sqlite3_vfs_find(nullptr);
    m_vfs = *s_base;
    m_vfs.zName = "sync-counting";
    m_vfs.xOpen = &open;
    sqlite3_vfs_register(&m_vfs, 1); // the default while this lives
  }
  ~SyncCountingVfs() {
    sqlite3_vfs_unregister(&m_vfs);
    sqlite3_vfs_register(s_base, 1);
  }
  SyncCountingVfs(const SyncCountingVfs&) = delete;
  SyncCountingVfs& operator=(const SyncCountingVfs&) = delete;

  int syncs() const { return s_syncs.load(); }

private:
  static int open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out) {
    const int rc = s_base->xOpen(s_base, name, file, flags, out);
    if (rc == SQLITE_OK && file->pMethods != nullptr && (flags & SQLITE_OPEN_WAL) != 0) {
      s_methods = *file->pMethods;
      s_base_sync = file->pMethods->xSync;
      s_methods.xSync = &sync;
      file->pMethods = &s_methods;
    }
    return rc;
  }
  static int sync(sqlite3_file* file, int flags) {
    ++s_syncs;
    return s_base_sync(file, flags);
  }

  sqlite3_vfs m_vfs{};
  static inline sqlite3_vfs* s_base = nullptr;
  static inline sqlite3_io_methods s_methods{};
  static inline int (*s_base_sync)(sqlite3_file*, int) = nullptr;
  static inline std::atomic<int> s_syncs{0};
};

SessionRow make_session(std::string id) {
  SessionRow s;
  s.id = std::move(id);
  s.created_at = "2026-01-01T00:00:00.000Z";
  s.updated_at = s.created_at;
  s.resume_json = R"({"conversation":[]})";
  return s;
}

// One step of an attempt as the journal records it: the model call, then its tool call.
Result<void> step(SessionStore& store, SessionRow& session, int n) {
  ModelCallRow call;
  call.session_id = session.id;
  call.iteration = 1;
  call.step = n;
  call.input_tokens = 100;
  session.input_tokens += 100;
  if (auto added = store.add_model_call(call, session); !added) {
    return added;
  }
  ToolCallRow tool;
  tool.session_id = session.id;
  tool.iteration = 1;
  tool.seq = n;
  tool.name = "read_file";
  tool.result = std::string(2000, 'x');
  return store.add_tool_call(tool);
}

TEST(SqliteDurability, StepsAreNotFsyncedButFinishingAnAttemptAndSessionChangesAre) {
  testing::TempDir dir;
  const SyncCountingVfs vfs;
  auto opened = SqliteSessionStore::open(dir.path() / "ralph.db");
  ASSERT_TRUE(opened) << opened.error().message;
  SessionStore& store = **opened;
  SessionRow session = make_session("s");

  int before = vfs.syncs();
  ASSERT_TRUE(store.create_session(session));
  EXPECT_GT(vfs.syncs(), before) << "a new session reaches the disk before the run goes on";

  AttemptRow attempt;
  attempt.session_id = session.id;
  attempt.iteration = 1;
  before = vfs.syncs();
  ASSERT_TRUE(store.save_attempt(attempt));
  for (int n = 1; n <= 20; ++n) {
    ASSERT_TRUE(step(store, session, n));
  }
  EXPECT_EQ(vfs.syncs(), before) << "steps of a running attempt are left in the page cache";

  attempt.finished = true;
  session.iterations = 1;
  before = vfs.syncs();
  ASSERT_TRUE(store.finish_attempt(attempt, {}, session));
  EXPECT_GT(vfs.syncs(), before) << "a finished attempt (and the steps before it) is fsynced";

  session.status = Status::completed;
  before = vfs.syncs();
  ASSERT_TRUE(store.update_session(session));
  EXPECT_GT(vfs.syncs(), before) << "a session's status change is fsynced";
}

TEST(SqliteDurability, StepsOfAnAttemptInProgressSurviveSigkillOfTheProcess) {
  testing::TempDir dir;
  const auto path = dir.path() / "ralph.db";
  {
    auto store = SqliteSessionStore::open(path);
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE((*store)->create_session(make_session("s")));
  } // closed before forking: a connection must never cross fork()
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    auto store = SqliteSessionStore::open(path);
    SessionRow session = make_session("s");
    for (int n = 1; store && n <= 30; ++n) {
      if (!step(**store, session, n)) {
        _exit(1);
      }
    }
    (void)!write(ready[1], "k", 1); // every step has returned: kill me now
    pause();
    _exit(2);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the child failed before its last step";
  close(ready[0]);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  auto store = SqliteSessionStore::open(path);
  ASSERT_TRUE(store) << store.error().message;
  auto record = (*store)->load("s");
  ASSERT_TRUE(record && *record);
  EXPECT_EQ((*record)->model_calls.size(), 30u);
  EXPECT_EQ((*record)->tool_calls.size(), 30u);
  EXPECT_EQ((*record)->session.input_tokens, 3000) << "the counters of the last step";
}

} // namespace
} // namespace ralph::store
