#pragma once

// Ways of cutting a stream into the pieces a network delivers, for the parsers that must give the
// same result however their input is cut (SSE decoder, stream readers; tests and fuzz targets).

#include <algorithm>
#include <cstddef>
#include <random>
#include <string_view>
#include <vector>

namespace ralph::testing {

inline std::vector<std::string_view> whole(std::string_view stream) {
  return {stream};
}

inline std::vector<std::string_view> bytewise(std::string_view stream) {
  std::vector<std::string_view> chunks;
  for (std::size_t i = 0; i < stream.size(); ++i) {
    chunks.push_back(stream.substr(i, 1));
  }
  return chunks;
}

// Pieces of 0 to 40 bytes (empty ones included on purpose), the same for the same seed.
inline std::vector<std::string_view> random_splits(std::string_view stream, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> length(0, 40);
  std::vector<std::string_view> chunks;
  for (std::size_t pos = 0; pos < stream.size();) {
    const std::size_t n = std::min(length(rng), stream.size() - pos);
    chunks.push_back(stream.substr(pos, n));
    pos += n;
  }
  return chunks;
}

} // namespace ralph::testing
