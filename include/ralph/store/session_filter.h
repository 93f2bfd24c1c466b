#pragma once

#include "ralph/core/status.h"
#include "ralph/store/session_owner.h"
#include "ralph/store/session_store.h"

#include <vector>

namespace ralph::store {

// Which sessions a list shows (`ralph sessions list --status/--kind/--limit`): those of one of
// `kinds` (none: every kind) whose status is one of `statuses`, or that `stopped`
// (session_stopped), or completed with a `verified` answer (none of the three: every status);
// the newest `limit` of them (0: all).
struct SessionFilter {
  std::vector<SessionKind> kinds;
  std::vector<Status> statuses;
  bool stopped = false;
  bool verified = false;
  int limit = 0;
};

// `sessions` (newest first, as list_sessions gives them) as `filter` selects them; `owned` tells
// a stopped session from a running one.
std::vector<SessionRow> select_sessions(std::vector<SessionRow> sessions,
                                        const SessionFilter& filter, const OwnerCheck& owned);

} // namespace ralph::store
