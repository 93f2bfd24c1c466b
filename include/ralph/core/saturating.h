#pragma once

#include <cstdint>
#include <limits>

namespace ralph {

// a + b, held at the int64 limits instead of overflowing: token counts come from providers, and
// a count near INT64_MAX must not wrap (undefined behaviour) when usages are summed.
constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) {
    return sum;
  }
  return b > 0 ? std::numeric_limits<std::int64_t>::max()
               : std::numeric_limits<std::int64_t>::min();
}

} // namespace ralph
