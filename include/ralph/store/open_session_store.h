#pragma once

#include "ralph/store/session_store.h"

#include <chrono>
#include <memory>
#include <string>

namespace ralph::store {

// The session store `location` names: a postgresql:// or postgres:// URL opens PostgreSQL
// (PgSessionStore, connection faults retried for `retry_for`), anything else is the path of a
// SQLite file (SqliteSessionStore; `retry_for` does not apply).
Result<std::unique_ptr<SessionStore>> open_session_store(const std::string& location,
                                                         std::chrono::milliseconds retry_for);

// Whether `location` names a PostgreSQL server rather than a SQLite file.
bool is_server_url(const std::string& location);

} // namespace ralph::store
