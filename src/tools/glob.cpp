#include "ralph/tools/glob.h"

#include <algorithm>
#include <fnmatch.h>

namespace ralph::tools {
namespace {

// "*.{cpp,h}" -> "*.cpp", "*.h": fnmatch has no braces, models use them all the time.
std::vector<std::string> expand_braces(const std::string& glob) {
  const std::size_t open = glob.find('{');
  const std::size_t close = open == std::string::npos ? open : glob.find('}', open);
  if (close == std::string::npos) {
    return {glob};
  }
  std::vector<std::string> out;
  const std::string inner = glob.substr(open + 1, close - open - 1);
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = inner.find(',', start);
    const std::string choice = inner.substr(start, comma - start);
    for (auto& rest : expand_braces(glob.substr(close + 1))) {
      out.push_back(glob.substr(0, open) + choice + rest);
    }
    if (comma == std::string::npos) {
      return out;
    }
    start = comma + 1;
  }
}

} // namespace

Glob::Glob(const std::string& glob)
    : m_patterns(glob.empty() ? std::vector<std::string>{} : expand_braces(glob)),
      m_whole_path(glob.find('/') != std::string::npos) {}

bool Glob::matches(const std::filesystem::path& relative) const {
  if (m_patterns.empty()) {
    return true;
  }
  const std::string subject =
      m_whole_path ? relative.generic_string() : relative.filename().string();
  return std::any_of(m_patterns.begin(), m_patterns.end(), [&](const std::string& pattern) {
    return ::fnmatch(pattern.c_str(), subject.c_str(), 0) == 0;
  });
}

} // namespace ralph::tools
