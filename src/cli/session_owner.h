#pragma once

#include <cstdint>

namespace ralph::cli {

// Whether process `pid` is alive and still a ralph (a killed session's pid may have been reused
// since). False for 0, negative pids and this process.
bool runs_ralph(std::int64_t pid);

} // namespace ralph::cli
