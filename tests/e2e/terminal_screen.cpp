#include "terminal_screen.h"

#include <algorithm>
#include <cstddef>

namespace ralph::testing {

std::vector<std::string> terminal_screen(std::string_view bytes) {
  // Each line as its cells, a cell holding one UTF-8 character.
  std::vector<std::vector<std::string>> lines(1);
  std::size_t row = 0;
  std::size_t column = 0;
  for (std::size_t i = 0; i < bytes.size();) {
    const char c = bytes[i];
    if (c == '\x1b' && i + 1 < bytes.size() && bytes[i + 1] == '[') {
      std::size_t end = i + 2;
      while (end < bytes.size() && (bytes[end] < 0x40 || bytes[end] > 0x7E)) {
        ++end;
      }
      if (end < bytes.size() && bytes[end] == 'K' && end == i + 2) {
        lines[row].resize(std::min(lines[row].size(), column));
      }
      i = end + 1;
      continue;
    }
    ++i;
    if (c == '\r') {
      column = 0;
    } else if (c == '\n') {
      ++row;
      column = 0;
      if (row == lines.size()) {
        lines.emplace_back();
      }
    } else if (c == '\b') {
      column = column > 0 ? column - 1 : 0;
    } else if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') {
      std::string cell(1, c);
      while (i < bytes.size() && (static_cast<unsigned char>(bytes[i]) & 0xC0) == 0x80) {
        cell += bytes[i++];
      }
      if (lines[row].size() <= column) {
        lines[row].resize(column + 1, " ");
      }
      lines[row][column++] = cell;
    }
  }
  std::vector<std::string> screen;
  for (const auto& cells : lines) {
    std::string line;
    for (const std::string& cell : cells) {
      line += cell;
    }
    screen.push_back(std::move(line));
  }
  return screen;
}

} // namespace ralph::testing
