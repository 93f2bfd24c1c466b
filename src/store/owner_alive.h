#pragma once

#include <cstdint>
#include <string>

namespace ralph::store {

// Whether the process `pid` on `host` may still run a session (which must not be pruned then). A
// process of another machine cannot be checked: it counts as alive while it owns the session.
// On this machine (or an unknown host), EPERM means the process exists but belongs to another
// user; only ESRCH proves it is gone.
bool owner_alive(std::int64_t pid, const std::string& host);

} // namespace ralph::store
