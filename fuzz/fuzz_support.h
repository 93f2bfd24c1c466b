#pragma once

// Shared by the fuzz targets: how an input is cut into parts and chunks, and how a broken
// property stops the run (libFuzzer keeps the input that did it).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph::fuzz {

// Stops the run with `what` when a promised property does not hold.
inline void check(bool holds, const char* what) {
  if (!holds) {
    std::fprintf(stderr, "property broken: %s\n", what);
    std::abort();
  }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The text before the first `separator` and the rest (all of it and "" when there is none).
inline std::pair<std::string_view, std::string_view> split_once(std::string_view text,
                                                                char separator) {
  const std::size_t at = text.find(separator);
  if (at == std::string_view::npos) {
    return {text, {}};
  }
  return {text.substr(0, at), text.substr(at + 1)};
}

// `text` cut into chunks whose lengths (1-16) come from a generator seeded by the text itself, so
// a run is reproducible from the input alone.
inline std::vector<std::string_view> chunks_of(std::string_view text) {
  std::uint32_t state = 2166136261U;
  for (const char c : text.substr(0, 64)) {
    state = (state ^ static_cast<unsigned char>(c)) * 16777619U;
  }
  std::vector<std::string_view> chunks;
  for (std::size_t pos = 0; pos < text.size();) {
    state = state * 1664525U + 1013904223U;
    const std::size_t length = std::min<std::size_t>(1 + (state >> 28), text.size() - pos);
    chunks.push_back(text.substr(pos, length));
    pos += length;
  }
  return chunks;
}

// The secret the provider targets hand the readers; it must never appear in an error.
inline constexpr std::string_view k_secret = "sk-fuzz-0123456789abcdef";

} // namespace ralph::fuzz
