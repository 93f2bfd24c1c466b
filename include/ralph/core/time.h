#pragma once

#include <chrono>
#include <string>

namespace ralph {

// "2026-11-23T10:15:00.123Z": UTC, millisecond precision.
std::string iso8601_utc(std::chrono::system_clock::time_point time);

} // namespace ralph
