#pragma once

// A temporary folder of many empty files (1,000 per subfolder), for what must stay right and fast
// at any workspace size. In memory (/dev/shm) when there is one: making a hundred thousand files
// on a busy disk can take minutes.

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace ralph::testing {

class ManyFilesDir {
public:
  explicit ManyFilesDir(std::int64_t files) {
    const std::filesystem::path parent = std::filesystem::is_directory("/dev/shm")
                                             ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path();
    std::string pattern = (parent / "ralph-files-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    m_path = pattern;
    for (std::int64_t i = 0; i < files; ++i) {
      const std::filesystem::path dir = m_path / fmt::format("d{:04}", i / 1000);
      if (i % 1000 == 0) {
        std::filesystem::create_directory(dir);
      }
      const int fd = ::creat((dir / fmt::format("f{:04}.txt", i % 1000)).c_str(), 0644);
      if (fd < 0) {
        throw std::runtime_error("creat failed");
      }
      ::close(fd);
    }
  }
  ~ManyFilesDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  ManyFilesDir(const ManyFilesDir&) = delete;
  ManyFilesDir& operator=(const ManyFilesDir&) = delete;

  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

} // namespace ralph::testing
