#include "store/change_feeds.h"

#include "ralph/store/open_session_store.h"

namespace ralph::store {

Result<std::unique_ptr<ChangeFeed>> ChangeFeed::open(const std::string& location,
                                                     std::chrono::milliseconds retry_for) {
  if (is_server_url(location)) {
    return open_pg_change_feed(location, retry_for);
  }
  return open_sqlite_change_feed(location);
}

std::optional<StoreChange> parse_change(std::string_view payload) {
  const auto prefixed = [&](std::string_view prefix) {
    return payload.starts_with(prefix) && payload.size() > prefix.size();
  };
  if (prefixed("session:")) {
    return StoreChange{.kind = StoreChange::Kind::session,
                       .id = std::string(payload.substr(std::string_view("session:").size()))};
  }
  if (prefixed("batch:")) {
    return StoreChange{.kind = StoreChange::Kind::batch,
                       .id = std::string(payload.substr(std::string_view("batch:").size()))};
  }
  if (payload == "workers") {
    return StoreChange{.kind = StoreChange::Kind::workers, .id = {}};
  }
  return std::nullopt;
}

std::vector<StoreChange> to_vector(const std::set<StoreChange>& changes) {
  return {changes.begin(), changes.end()};
}

} // namespace ralph::store
