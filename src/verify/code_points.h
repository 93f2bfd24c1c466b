#pragma once

#include <cstddef>
#include <string_view>

namespace ralph::verify {

// Unicode code points in UTF-8 `text`, counted as the bytes that do not continue a sequence:
// exact for valid UTF-8, an estimate otherwise.
inline std::size_t count_code_points(std::string_view text) {
  std::size_t count = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++count;
    }
  }
  return count;
}

} // namespace ralph::verify
