#pragma once

#include "ralph/store/change_feed.h"

#include <filesystem>
#include <optional>
#include <set>
#include <string_view>

// The two ChangeFeed backends, behind ChangeFeed::open.
namespace ralph::store {

// LISTEN on the PostgreSQL server at `url` (pg_change_feed.cpp).
Result<std::unique_ptr<ChangeFeed>> open_pg_change_feed(const std::string& url,
                                                        std::chrono::milliseconds retry_for);
// inotify on the SQLite file at `path` (sqlite_change_feed.cpp).
Result<std::unique_ptr<ChangeFeed>> open_sqlite_change_feed(const std::filesystem::path& path);

// The change a `ralph_changes` payload announces (pg::Connection::notify); nullopt for one this
// ralph does not know (a newer ralph's), which readers skip.
std::optional<StoreChange> parse_change(std::string_view payload);

// The changes in a set's order, each once.
std::vector<StoreChange> to_vector(const std::set<StoreChange>& changes);

} // namespace ralph::store
