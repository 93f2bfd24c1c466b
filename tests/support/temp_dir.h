#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ralph::testing {

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return m_path; }

  // Writes `content` to `relative` (creating parent folders) and returns the absolute path.
  std::filesystem::path write(std::string_view relative, std::string_view content) const;
  // Whole content of `relative`; empty if missing.
  std::string read(std::string_view relative) const;

private:
  std::filesystem::path m_path;
};

} // namespace ralph::testing
