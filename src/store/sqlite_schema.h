#pragma once

#include "store/sqlite_db.h"

#include <span>
#include <string_view>

namespace ralph::store::sqlite {

// One step of a schema: `sql` takes a database from `version - 1` to `version`.
struct Migration {
  int version = 0;
  std::string_view sql;
};

// The session store's schema, oldest step first; the last version is the one this build writes.
// Steps are never edited once released: a change is a new step.
std::span<const Migration> session_schema();

// The database's schema version (PRAGMA user_version; 0 for a new file).
Result<int> schema_version(Database& db);

// Brings `db` to the last version of `migrations` (numbered 1, 2, ... in order), applying the
// missing steps and the new version in one write transaction, so a failed step leaves the file
// as it was and processes opening a new file at once migrate it exactly once. Fails on a
// database newer than the list, and on one with tables but no version (not ralph's).
Result<void> migrate(Database& db, std::span<const Migration> migrations);

} // namespace ralph::store::sqlite
