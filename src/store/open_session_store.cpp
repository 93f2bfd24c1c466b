#include "ralph/store/open_session_store.h"

#include "ralph/core/try.h"
#include "ralph/store/pg_session_store.h"
#include "ralph/store/sqlite_session_store.h"

namespace ralph::store {

bool is_server_url(const std::string& location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

Result<std::unique_ptr<SessionStore>> open_session_store(const std::string& location,
                                                         std::chrono::milliseconds retry_for) {
  if (is_server_url(location)) {
    TRY_ASSIGN(auto opened, PgSessionStore::open(location, retry_for));
    return std::unique_ptr<SessionStore>(std::move(opened));
  }
  TRY_ASSIGN(auto opened, SqliteSessionStore::open(location));
  return std::unique_ptr<SessionStore>(std::move(opened));
}

} // namespace ralph::store
