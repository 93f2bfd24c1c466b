#include "store/change_feeds.h"
#include "store/sqlite_db.h"
#include "store/sqlite_schema.h"
#include "store/waker.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <sys/inotify.h>
#include <unistd.h>

namespace ralph::store {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// After inotify reports a write, how long until each look again: a writer appends its commit to
// the -wal and only then publishes it (in the -shm, written through a mapping inotify does not
// see), so the first look may come a moment too soon. Each look costs one PRAGMA when nothing
// was committed.
constexpr std::array<milliseconds, 4> k_looks_again{milliseconds(10), milliseconds(50),
                                                    milliseconds(250), milliseconds(1000)};

class SqliteChangeFeed final : public ChangeFeed {
public:
  SqliteChangeFeed(std::unique_ptr<sqlite::Database> db, int inotify, std::string name, Waker waker)
      : m_db(std::move(db)), m_inotify(inotify), m_name(std::move(name)),
        m_waker(std::move(waker)) {}
  ~SqliteChangeFeed() override { ::close(m_inotify); }
  SqliteChangeFeed(const SqliteChangeFeed&) = delete;
  SqliteChangeFeed& operator=(const SqliteChangeFeed&) = delete;

  Result<std::vector<StoreChange>> wait(milliseconds timeout) override;
  void wake() override { m_waker.wake(); }

  // What is there now, to compare the next commits with.
  Result<void> start();

private:
  // Whether the events queued name the database or its -wal (or overflowed: anything may have).
  bool drain_events();
  // The sessions changed since the last look; none when no other connection committed.
  Result<std::set<StoreChange>> look();
  Result<std::int64_t> data_version();
  Result<std::map<std::string, std::string>> sessions();

  std::unique_ptr<sqlite::Database> m_db;
  int m_inotify;
  std::string m_name; // the database's file name in the folder watched
  Waker m_waker;
  std::int64_t m_version = 0;
  std::map<std::string, std::string> m_seen;  // session id -> updated_at
  std::size_t m_looks = 0;                    // looks again done since the last write seen
  std::optional<Clock::time_point> m_look_at; // the next look again, if any
};

Result<void> SqliteChangeFeed::start() {
  TRY_ASSIGN(m_version, data_version());
  TRY_ASSIGN(m_seen, sessions());
  return {};
}

Result<std::int64_t> SqliteChangeFeed::data_version() {
  TRY_ASSIGN(sqlite::Statement s, m_db->prepare("PRAGMA data_version", "look for changes"));
  TRY(s.step());
  return s.integer(0);
}

Result<std::map<std::string, std::string>> SqliteChangeFeed::sessions() {
  TRY_ASSIGN(sqlite::Statement s,
             m_db->prepare("SELECT id, updated_at FROM sessions", "look for changes"));
  std::map<std::string, std::string> out;
  for (;;) {
    TRY_ASSIGN(const bool row, s.step());
    if (!row) {
      return out;
    }
    out.emplace(s.text(0), s.text(1));
  }
}

Result<std::set<StoreChange>> SqliteChangeFeed::look() {
  std::set<StoreChange> changes;
  TRY_ASSIGN(const std::int64_t version, data_version());
  if (version == m_version) {
    return changes;
  }
  TRY_ASSIGN(auto now, sessions());
  m_version = version;
  for (const auto& [id, updated_at] : now) {
    const auto seen = m_seen.find(id);
    if (seen == m_seen.end() || seen->second != updated_at) {
      changes.insert(StoreChange{.kind = StoreChange::Kind::session, .id = id});
    }
  }
  for (const auto& [id, updated_at] : m_seen) {
    if (now.find(id) == now.end()) {
      changes.insert(StoreChange{.kind = StoreChange::Kind::session, .id = id}); // removed
    }
  }
  m_seen = std::move(now);
  return changes;
}

bool SqliteChangeFeed::drain_events() {
  bool ours = false;
  alignas(inotify_event) std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t got = ::read(m_inotify, buffer.data(), buffer.size());
    if (got <= 0) {
      return ours; // EAGAIN: read them all
    }
    for (ssize_t at = 0; at < got;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer.data() + at);
      const std::string_view name = event->len > 0 ? std::string_view(event->name) : "";
      ours =
          ours || (event->mask & IN_Q_OVERFLOW) != 0 || name == m_name || name == m_name + "-wal";
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
}

Result<std::vector<StoreChange>> SqliteChangeFeed::wait(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto until = m_look_at ? std::min(deadline, *m_look_at) : deadline;
    const auto outcome =
        m_waker.wait(m_inotify, std::chrono::duration_cast<milliseconds>(until - Clock::now()));
    if (outcome == Waker::Outcome::woken) {
      return std::vector<StoreChange>{};
    }
    if (outcome == Waker::Outcome::readable) {
      if (!drain_events()) {
        continue;
      }
      m_looks = 0; // a new write: look now, then again a few times
    } else if (!m_look_at || Clock::now() < *m_look_at) {
      return std::vector<StoreChange>{}; // the caller's timeout, no look due
    }
    TRY_ASSIGN(const auto changes, look());
    m_look_at = m_looks < k_looks_again.size()
                    ? std::optional(Clock::now() + k_looks_again[m_looks++])
                    : std::nullopt;
    if (!changes.empty()) {
      return to_vector(changes);
    }
  }
}

} // namespace

Result<std::unique_ptr<ChangeFeed>> open_sqlite_change_feed(const std::filesystem::path& path) {
  TRY_ASSIGN(auto db, sqlite::Database::open(path));
  TRY(sqlite::migrate(*db, sqlite::session_schema()));
  const std::filesystem::path file = std::filesystem::absolute(path);
  TRY_ASSIGN(Waker waker, Waker::make());
  const int inotify = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify < 0) {
    return fail(db->error_message(fmt::format("inotify_init1: {}", std::strerror(errno))));
  }
  // The folder, not the files: the -wal comes and goes with the connections to the database.
  if (::inotify_add_watch(inotify, file.parent_path().c_str(),
                          IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE) < 0) {
    const int saved = errno;
    ::close(inotify);
    return fail(db->error_message(
        fmt::format("watch {}: {}", file.parent_path().string(), std::strerror(saved))));
  }
  auto feed = std::make_unique<SqliteChangeFeed>(std::move(db), inotify, file.filename().string(),
                                                 std::move(waker));
  TRY(feed->start());
  return std::unique_ptr<ChangeFeed>(std::move(feed));
}

} // namespace ralph::store
