#include "store/sqlite_db.h"
#include "store/sqlite_schema.h"
#include "support/temp_dir.h"

#include "ralph/store/sqlite_session_store.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

namespace ralph::store::sqlite {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::unique_ptr<Database> open_db(const std::filesystem::path& path) {
  auto db = Database::open(path);
  if (!db) {
    ADD_FAILURE() << db.error().message;
    return nullptr;
  }
  return std::move(*db);
}

int version_of(const std::filesystem::path& path) {
  auto db = open_db(path);
  if (!db) {
    return -1;
  }
  auto version = schema_version(*db);
  return version ? *version : -1;
}

std::int64_t pragma(Database& db, std::string_view sql) {
  auto statement = db.prepare(sql, "read pragma");
  EXPECT_TRUE(statement);
  auto row = statement->step();
  EXPECT_TRUE(row && *row);
  return statement->integer(0);
}

constexpr Migration k_notes_v1 = {1, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)"};
constexpr Migration k_notes_v2 = {2, "ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT "
                                     "'nobody'; CREATE INDEX notes_by_author ON notes (author)"};

TEST(SqliteDatabase, OpensInWalModeWithFullSyncForeignKeysAndABusyTimeout) {
  testing::TempDir dir;
  auto db = open_db(dir.path() / "a" / "b" / "x.db");
  ASSERT_TRUE(db);
  auto mode = db->prepare("PRAGMA journal_mode", "read journal mode");
  ASSERT_TRUE(mode && *mode->step());
  EXPECT_EQ(mode->text(0), "wal");
  EXPECT_EQ(pragma(*db, "PRAGMA synchronous"), 2); // FULL
  EXPECT_EQ(pragma(*db, "PRAGMA foreign_keys"), 1);
  EXPECT_GE(pragma(*db, "PRAGMA busy_timeout"), 1000);
}

TEST(SqliteDatabase, ATransactionRollsBackUnlessCommitted) {
  testing::TempDir dir;
  auto db = open_db(dir.path() / "x.db");
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->exec("CREATE TABLE t (v INTEGER)", "create"));
  const auto insert = [&](int v) {
    auto statement = db->prepare("INSERT INTO t (v) VALUES (?1)", "insert");
    ASSERT_TRUE(statement);
    ASSERT_TRUE(statement->bind(v).run());
  };
  {
    auto transaction = Transaction::write(*db, Sync::disk);
    ASSERT_TRUE(transaction);
    insert(1);
  }
  EXPECT_FALSE(db->in_transaction());
  {
    auto transaction = Transaction::write(*db, Sync::disk);
    ASSERT_TRUE(transaction);
    insert(2);
    ASSERT_TRUE(transaction->commit());
  }
  EXPECT_EQ(pragma(*db, "SELECT group_concat(v) FROM t"), 2);
}

TEST(SqliteDatabase, ABindErrorIsReportedByStepWithTheOperation) {
  testing::TempDir dir;
  const auto path = dir.path() / "x.db";
  auto db = open_db(path);
  ASSERT_TRUE(db);
  auto statement = db->prepare("SELECT ?1", "select one");
  ASSERT_TRUE(statement);
  auto row = statement->bind(1).bind(2).step();
  ASSERT_FALSE(row);
  EXPECT_EQ(row.error().kind, ErrorKind::store);
  EXPECT_EQ(row.error().message, path.string() + ": select one: column index out of range");
}

TEST(SqliteDatabase, BadSqlIsAnErrorNamingTheOperation) {
  testing::TempDir dir;
  auto db = open_db(dir.path() / "x.db");
  ASSERT_TRUE(db);
  auto statement = db->prepare("SELEKT 1", "count things");
  ASSERT_FALSE(statement);
  EXPECT_THAT(statement.error().message, HasSubstr(": count things: near \"SELEKT\""));
}

TEST(SqliteSchema, MigratesAnOlderDatabaseForwardKeepingItsRows) {
  testing::TempDir dir;
  const auto path = dir.path() / "x.db";
  {
    auto db = open_db(path);
    ASSERT_TRUE(db);
    const Migration old_schema[] = {k_notes_v1};
    ASSERT_TRUE(migrate(*db, old_schema));
    ASSERT_TRUE(db->exec("INSERT INTO notes (text) VALUES ('kept')", "insert"));
  }
  EXPECT_EQ(version_of(path), 1);
  auto db = open_db(path);
  ASSERT_TRUE(db);
  const Migration new_schema[] = {k_notes_v1, k_notes_v2};
  auto migrated = migrate(*db, new_schema);
  ASSERT_TRUE(migrated) << migrated.error().message;
  EXPECT_EQ(*schema_version(*db), 2);
  auto note = db->prepare("SELECT text, author FROM notes", "read notes");
  ASSERT_TRUE(note && *note->step());
  EXPECT_EQ(note->text(0), "kept");
  EXPECT_EQ(note->text(1), "nobody");
}

TEST(SqliteSchema, AFailingStepLeavesTheFileAsItWas) {
  testing::TempDir dir;
  const auto path = dir.path() / "x.db";
  auto db = open_db(path);
  ASSERT_TRUE(db);
  const Migration old_schema[] = {k_notes_v1};
  ASSERT_TRUE(migrate(*db, old_schema));
  const Migration broken[] = {k_notes_v1, k_notes_v2, {3, "CREATE TABLE broken ("}};
  auto migrated = migrate(*db, broken);
  ASSERT_FALSE(migrated);
  EXPECT_THAT(migrated.error().message, StartsWith(path.string() + ": migrate to schema 3: "));
  EXPECT_FALSE(db->in_transaction());
  EXPECT_EQ(*schema_version(*db), 1);
  // Step 2 went with the failed step 3.
  EXPECT_EQ(pragma(*db, "SELECT count(*) FROM pragma_table_info('notes')"), 2);
}

TEST(SqliteSchema, AnUpToDateDatabaseIsLeftAlone) {
  testing::TempDir dir;
  auto db = open_db(dir.path() / "x.db");
  ASSERT_TRUE(db);
  const Migration schema[] = {k_notes_v1};
  ASSERT_TRUE(migrate(*db, schema));
  // Running the same list again would fail on CREATE TABLE if it ran anything.
  EXPECT_TRUE(migrate(*db, schema));
}

TEST(SqliteSessionStoreSchema, OpensAnEmptyVersionZeroFileAndMigratesIt) {
  testing::TempDir dir;
  const auto path = dir.path() / "ralph.db";
  ASSERT_TRUE(open_db(path)); // an SQLite file at user_version 0, no tables
  EXPECT_EQ(version_of(path), 0);
  auto store = SqliteSessionStore::open(path);
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_EQ(version_of(path), SqliteSessionStore::schema_version());
  SessionRow session;
  session.id = "s-1";
  EXPECT_TRUE((*store)->create_session(session));
}

TEST(SqliteSessionStoreSchema, VerdictsOfASchemaOneFileGetTheirKind) {
  testing::TempDir dir;
  const auto path = dir.path() / "ralph.db";
  {
    auto db = open_db(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE(migrate(*db, session_schema().first(1)));
    ASSERT_TRUE(db->exec(
        "INSERT INTO sessions VALUES ('s-1', 'g', '/ws', 'm', 'failed', '', '', 't', 't', '{}', "
        "'{}', '{}', 1, 1, 0, 0, 0, 1, 0, 0);"
        "INSERT INTO verdicts (session_id, iteration, seq, verifier, result, category, feedback, "
        "reasoning, policy, model, input_tokens, output_tokens, duration_ms, evidence_json, "
        "output, at) VALUES "
        "('s-1', 1, 1, 'command: make check', 'fail', 'test_failed', '', '', '', '', 0, 0, 0, "
        "'', '', 't'), ('s-1', 1, 2, 'judge', 'pass', '', '', '', '', '', 0, 0, 0, '', '', 't')",
        "write schema 1 rows"));
  }
  auto store = SqliteSessionStore::open(path);
  ASSERT_TRUE(store) << store.error().message;
  auto record = (*store)->load("s-1");
  ASSERT_TRUE(record && *record);
  ASSERT_EQ((*record)->verdicts.size(), 2U);
  EXPECT_EQ((*record)->verdicts[0].kind, "command");
  EXPECT_EQ((*record)->verdicts[0].result, Outcome::fail);
  EXPECT_EQ((*record)->verdicts[1].kind, "");
  EXPECT_EQ((*record)->session.status, Status::failed);
}

TEST(SqliteSessionStoreSchema, TheResumePointOfASchemaFourFileMovesToItsOwnTable) {
  testing::TempDir dir;
  const auto path = dir.path() / "ralph.db";
  {
    auto db = open_db(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE(migrate(*db, session_schema().first(4)));
    ASSERT_TRUE(
        db->exec("INSERT INTO sessions VALUES ('s-1', 'g', '/ws', 'm', 'active', '', '', 't', 't', "
                 "'{}', '{}', '{\"next_iteration\":2}', 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 'run', '')",
                 "write schema 4 row"));
  }
  auto store = SqliteSessionStore::open(path);
  ASSERT_TRUE(store) << store.error().message;
  auto found = (*store)->find_session("s-1");
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->resume_json, R"({"next_iteration":2})");
  // Written again, it stays one row; the session's own column is left empty.
  SessionRow row = **found;
  row.resume_json = R"({"next_iteration":3})";
  ASSERT_TRUE((*store)->update_session(row));
  EXPECT_EQ((*(*store)->find_session("s-1"))->resume_json, R"({"next_iteration":3})");
  auto db = open_db(path);
  ASSERT_TRUE(db);
  EXPECT_EQ(pragma(*db, "SELECT count(*) FROM session_resume"), 1);
  EXPECT_EQ(pragma(*db, "SELECT length(resume_json) FROM sessions"), 0);
}

TEST(SqliteSessionStoreSchema, OwnersOfASchemaFiveFileHaveNoHost) {
  testing::TempDir dir;
  const auto path = dir.path() / "ralph.db";
  {
    auto db = open_db(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE(migrate(*db, session_schema().first(5)));
    ASSERT_TRUE(
        db->exec("INSERT INTO sessions VALUES ('s-1', 'g', '/ws', 'm', 'active', '', '', 't', 't', "
                 "'{}', '{}', '', 1, 1, 0, 0, 0, 1, 0, 4242, 0, 0, 'run', '')",
                 "write schema 5 row"));
  }
  auto store = SqliteSessionStore::open(path);
  ASSERT_TRUE(store) << store.error().message;
  auto found = (*store)->find_session("s-1");
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->owner_pid, 4242);
  EXPECT_EQ((*found)->owner_host, "");
  SessionRow row = **found;
  row.owner_host = "build-7";
  ASSERT_TRUE((*store)->update_session(row));
  EXPECT_EQ((*(*store)->find_session("s-1"))->owner_host, "build-7");
}

TEST(SqliteSessionStoreSchema, SessionsOfASchemaThreeFileAreRunsWithoutParent) {
  testing::TempDir dir;
  const auto path = dir.path() / "ralph.db";
  {
    auto db = open_db(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE(migrate(*db, session_schema().first(3)));
    ASSERT_TRUE(db->exec(
        "INSERT INTO sessions VALUES ('s-1', 'g', '/ws', 'm', 'completed', '', 'done', 't', 't', "
        "'{}', '{}', '{}', 1, 1, 0, 0, 0, 1, 0, 0, 1, 0)",
        "write schema 3 row"));
  }
  auto store = SqliteSessionStore::open(path);
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_EQ(version_of(path), SqliteSessionStore::schema_version());
  auto found = (*store)->find_session("s-1");
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->kind, SessionKind::run);
  EXPECT_EQ((*found)->parent_id, "");
  EXPECT_TRUE((*found)->verified);
  EXPECT_EQ((*found)->answer, "done");
}

TEST(SqliteSessionStoreSchema, RefusesADatabaseWrittenByANewerRalph) {
  testing::TempDir dir;
  const auto path = dir.path() / "ralph.db";
  const int newer = SqliteSessionStore::schema_version() + 2;
  {
    auto db = open_db(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->exec(fmt::format("PRAGMA user_version = {}", newer), "set version"));
  }
  auto store = SqliteSessionStore::open(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().kind, ErrorKind::store);
  EXPECT_EQ(store.error().message,
            fmt::format("{}: written by a newer ralph (schema {}, this build knows {})",
                        path.string(), newer, SqliteSessionStore::schema_version()));
  EXPECT_EQ(version_of(path), newer); // never downgraded
}

TEST(SqliteSessionStoreSchema, RefusesAnotherProgramsDatabase) {
  testing::TempDir dir;
  const auto path = dir.path() / "other.db";
  {
    auto db = open_db(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->exec("CREATE TABLE sessions (x)", "create"));
  }
  auto store = SqliteSessionStore::open(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message,
            path.string() + ": not a ralph database (it has tables but no schema version)");
}

TEST(SqliteSessionStoreSchema, ANonDatabaseFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  const auto path = dir.write("notes.txt", std::string(4096, 'a') + "this is not a database\n");
  auto store = SqliteSessionStore::open(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().kind, ErrorKind::store);
  EXPECT_EQ(store.error().file, path.string());
  EXPECT_THAT(store.error().message, StartsWith(path.string() + ": "));
  EXPECT_THAT(store.error().message, HasSubstr("file is not a database"));
  EXPECT_EQ(dir.read("notes.txt").size(), 4096u + 23); // untouched
}

TEST(SqliteSessionStoreSchema, ACorruptDatabaseIsAnErrorNamingIt) {
  testing::TempDir dir;
  const auto path = dir.path() / "ralph.db";
  {
    auto store = SqliteSessionStore::open(path);
    ASSERT_TRUE(store);
  }
  // Keep the SQLite header, wreck everything after it.
  std::string bytes = dir.read("ralph.db");
  ASSERT_GT(bytes.size(), 200u);
  for (std::size_t i = 100; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>(0xA5);
  }
  std::filesystem::remove(dir.path() / "ralph.db-wal");
  std::filesystem::remove(dir.path() / "ralph.db-shm");
  dir.write("ralph.db", bytes);
  auto store = SqliteSessionStore::open(path);
  ASSERT_FALSE(store);
  EXPECT_THAT(store.error().message, StartsWith(path.string() + ": "));
  EXPECT_THAT(store.error().message, HasSubstr("malformed"));
}

TEST(SqliteSessionStoreSchema, AFolderInTheWayIsAnErrorNamingThePath) {
  testing::TempDir dir;
  dir.write("blocker", "a file where a folder should be");
  const auto path = dir.path() / "blocker" / ".ralph" / "ralph.db";
  auto store = SqliteSessionStore::open(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().kind, ErrorKind::store);
  EXPECT_THAT(store.error().message,
              StartsWith(path.string() + ": create folder " + path.parent_path().string()));
  EXPECT_THAT(store.error().message, HasSubstr("Not a directory"));
}

TEST(SqliteSessionStoreSchema, AnUnwritableFolderIsAnErrorNamingThePath) {
  if (geteuid() == 0) {
    GTEST_SKIP() << "root writes anywhere";
  }
  testing::TempDir dir;
  const auto folder = dir.path() / "locked";
  std::filesystem::create_directory(folder);
  ASSERT_EQ(chmod(folder.c_str(), 0555), 0);
  const auto path = folder / "ralph.db";
  auto store = SqliteSessionStore::open(path);
  chmod(folder.c_str(), 0755);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message,
            path.string() + ": open: unable to open database file (Permission denied)");
}

TEST(SqliteSessionStoreSchema, AFolderAtThePathIsAnErrorNamingIt) {
  testing::TempDir dir;
  const auto path = dir.path() / "ralph.db";
  std::filesystem::create_directory(path);
  auto store = SqliteSessionStore::open(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().message,
            path.string() + ": open: unable to open database file (Is a directory)");
}

} // namespace
} // namespace ralph::store::sqlite
