#pragma once

#include "cli/session_view.h"

#include "ralph/store/session_store.h"

#include <string>
#include <vector>

namespace ralph::cli {

// How many ticks `ralph sessions list --heartbeat` shows (the totals count them all).
inline constexpr std::size_t k_heartbeat_ticks_shown = 20;

// `ralph sessions list --heartbeat`: of `sessions` (newest first), the recent heartbeat ticks, a
// line each (start, status, verified, duration, the answer's first line, id), and a total.
std::string render_heartbeat_list(const std::vector<store::SessionRow>& sessions,
                                  const OwnerCheck& running);

// The same as JSON: {"ticks": [...], "total": {"ticks", "verified", "unverified",
// "not_completed"}}.
std::string heartbeat_list_json(const std::vector<store::SessionRow>& sessions,
                                const OwnerCheck& running);

} // namespace ralph::cli
