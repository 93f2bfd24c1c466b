#include "ralph/core/ids.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <random>

namespace ralph {

std::string new_session_id() {
  std::random_device entropy;
  const std::uint64_t random =
      ((static_cast<std::uint64_t>(entropy()) << 32) | entropy()) & 0xFFFF'FFFF'FFFFULL;
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y%m%d-%H%M%S}-{:012x}", now, random);
}

} // namespace ralph
