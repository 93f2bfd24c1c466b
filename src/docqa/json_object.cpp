#include "json_object.h"

namespace ralph::docqa {

std::string_view json_object_text(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    return text.substr(first);
  }
  if (const std::size_t fence_end = text.rfind("```"); fence_end != std::string_view::npos) {
    const std::size_t fence_start = text.rfind("```", fence_end == 0 ? 0 : fence_end - 1);
    if (fence_start != std::string_view::npos && fence_start < fence_end) {
      const std::size_t body = text.find('\n', fence_start);
      if (body != std::string_view::npos && body < fence_end) {
        return text.substr(body + 1, fence_end - body - 1);
      }
    }
  }
  const std::size_t close = text.rfind('}');
  std::size_t open = text.rfind("\n{", close);
  open = open == std::string_view::npos ? text.find('{') : open + 1;
  if (close == std::string_view::npos || open == std::string_view::npos || open > close) {
    return {};
  }
  return text.substr(open, close - open + 1);
}

} // namespace ralph::docqa
