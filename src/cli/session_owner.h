#pragma once

#include "ralph/store/session_store.h"

#include <cstdint>
#include <string>

namespace ralph::cli {

// Whether process `pid` is alive and still a ralph (a killed session's pid may have been reused
// since). False for 0, negative pids and this process.
bool runs_ralph(std::int64_t pid);

// Whether `row` names a process of another machine as its owner (its owner_host, recorded in a
// store a server shares): that process cannot be checked from here and counts as running it.
bool owned_on_another_host(const store::SessionRow& row);

// Whether a process runs the session now: on another host (owned_on_another_host) or a live
// ralph here (runs_ralph).
bool session_owned(const store::SessionRow& row);

// "process 123" or "process 123 on host build-7", for messages.
std::string owner_text(const store::SessionRow& row);

} // namespace ralph::cli
