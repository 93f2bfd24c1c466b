#include "ralph/store/session_filter.h"

#include <algorithm>

namespace ralph::store {

std::vector<SessionRow> select_sessions(std::vector<SessionRow> sessions,
                                        const SessionFilter& filter, const OwnerCheck& owned) {
  const bool any_status = filter.statuses.empty() && !filter.stopped && !filter.verified;
  const auto wanted = [&](const SessionRow& row) {
    if (!filter.kinds.empty() &&
        std::find(filter.kinds.begin(), filter.kinds.end(), row.kind) == filter.kinds.end()) {
      return false;
    }
    if (any_status) {
      return true;
    }
    // A stopped session is shown as stopped, not as the `active` it was recorded with.
    const bool stopped = session_stopped(row, owned);
    return (stopped && filter.stopped) || (filter.verified && row.verified) ||
           (!stopped && std::find(filter.statuses.begin(), filter.statuses.end(), row.status) !=
                            filter.statuses.end());
  };
  std::erase_if(sessions, [&](const SessionRow& row) { return !wanted(row); });
  if (filter.limit > 0 && sessions.size() > static_cast<std::size_t>(filter.limit)) {
    sessions.resize(static_cast<std::size_t>(filter.limit));
  }
  return sessions;
}

} // namespace ralph::store
