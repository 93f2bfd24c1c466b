#pragma once

#include <cstdint>

namespace ralph::store {

// Whether the process `pid` of this machine still runs (a session it owns must not be pruned).
// EPERM means the process exists but belongs to another user; only ESRCH proves it is gone.
bool owner_alive(std::int64_t pid);

} // namespace ralph::store
