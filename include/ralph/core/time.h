#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace ralph {

// "2026-11-23T10:15:00.123Z": UTC, millisecond precision.
std::string iso8601_utc(std::chrono::system_clock::time_point time);

// The inverse for that exact form (fractional seconds optional); nullopt for anything else.
std::optional<std::chrono::system_clock::time_point> parse_iso8601_utc(std::string_view text);

// "42s", "5m", "3h", "12d" for a person; the largest unit that fits.
std::string short_age(std::chrono::system_clock::duration age);

} // namespace ralph
