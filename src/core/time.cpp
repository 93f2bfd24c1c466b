#include "ralph/core/time.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace ralph {

std::string iso8601_utc(std::chrono::system_clock::time_point time) {
  const auto ms = std::chrono::floor<std::chrono::milliseconds>(time);
  const auto seconds = std::chrono::floor<std::chrono::seconds>(ms);
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", seconds,
                     static_cast<int>((ms - seconds).count()));
}

std::optional<std::chrono::system_clock::time_point> parse_iso8601_utc(std::string_view text) {
  int year = 0;
  unsigned month = 0;
  unsigned day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  int millis = 0;
  char zone = 0;
  const std::string copy(text);
  const int fields = std::sscanf(copy.c_str(), "%4d-%2u-%2uT%2d:%2d:%2d.%3d%c", &year, &month, &day,
                                 &hour, &minute, &second, &millis, &zone);
  const bool with_millis = fields == 8 && zone == 'Z';
  const bool without = fields == 6 && !copy.empty() && copy.back() == 'Z';
  if (!with_millis && !without) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(month),
                                         std::chrono::day(day)};
  if (!date.ok() || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  return std::chrono::sys_days(date) + std::chrono::hours(hour) + std::chrono::minutes(minute) +
         std::chrono::seconds(second) + std::chrono::milliseconds(with_millis ? millis : 0);
}

std::string short_age(std::chrono::system_clock::duration age) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(age).count();
  if (seconds < 60) {
    return fmt::format("{}s", std::max<std::int64_t>(seconds, 0));
  }
  if (seconds < 3600) {
    return fmt::format("{}m", seconds / 60);
  }
  if (seconds < 86400) {
    return fmt::format("{}h", seconds / 3600);
  }
  return fmt::format("{}d", seconds / 86400);
}

} // namespace ralph
