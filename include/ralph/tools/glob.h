#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::tools {

// A file glob as models and users write them: `*.cpp`, `*.{h,cpp}`, `tests/**`. Without a slash
// it matches the file name anywhere; with one it matches the whole workspace-relative path, where
// `*` also crosses directories (so `tests/*` and `tests/**` both cover the tree). An empty glob
// matches everything.
class Glob {
public:
  explicit Glob(const std::string& glob);
  bool matches(const std::filesystem::path& relative) const;

private:
  std::vector<std::string> m_patterns;
  bool m_whole_path;
};

} // namespace ralph::tools
