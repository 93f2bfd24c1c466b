#include "support/temp_dir.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace ralph::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ralph-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  m_path = std::filesystem::canonical(pattern);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

std::filesystem::path TempDir::write(std::string_view relative, std::string_view content) const {
  const auto target = m_path / relative;
  std::filesystem::create_directories(target.parent_path());
  std::ofstream out(target, std::ios::binary);
  out << content;
  return target;
}

std::string TempDir::read(std::string_view relative) const {
  std::ifstream in(m_path / relative, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace ralph::testing
