#include "ralph/core/time.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace ralph {

std::string iso8601_utc(std::chrono::system_clock::time_point time) {
  const auto ms = std::chrono::floor<std::chrono::milliseconds>(time);
  const auto seconds = std::chrono::floor<std::chrono::seconds>(ms);
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", seconds,
                     static_cast<int>((ms - seconds).count()));
}

} // namespace ralph
