#include "rlm/output_buffer.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::rlm {
namespace {

// An error message stays readable even under a tiny output budget.
constexpr std::size_t k_min_trailer_chars = 500;

bool starts_code_point(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0U) != 0x80U;
}

} // namespace

CharPrefix char_prefix(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!starts_code_point(text[i])) {
      continue;
    }
    if (chars == max_chars) {
      return {text.substr(0, i), utf8_length(text.substr(i))};
    }
    ++chars;
  }
  return {text, 0};
}

void OutputBuffer::append(std::string_view text) {
  if (m_chars == m_max_chars) {
    m_dropped += utf8_length(text);
    return;
  }
  const CharPrefix kept = char_prefix(text, m_max_chars - m_chars);
  m_text.append(kept.head);
  m_chars += utf8_length(kept.head);
  m_dropped += kept.dropped;
}

std::string OutputBuffer::finish(std::string_view trailer) const {
  std::string out = m_text;
  if (m_dropped > 0) {
    if (!out.empty() && out.back() != '\n') {
      out += '\n';
    }
    out += fmt::format("[output truncated: {} more chars]\n", m_dropped);
  }
  if (!trailer.empty()) {
    if (!out.empty() && out.back() != '\n') {
      out += '\n';
    }
    const CharPrefix kept = char_prefix(trailer, std::max(m_max_chars, k_min_trailer_chars));
    out.append(kept.head);
    if (kept.dropped > 0) {
      out += fmt::format(" [truncated: {} more chars]", kept.dropped);
    }
  }
  // Lua strings are bytes; the model's context wants text.
  return to_valid_utf8(out);
}

} // namespace ralph::rlm
