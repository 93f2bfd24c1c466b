#include "temp_workspace.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

namespace ralph::bench {

TempWorkspace::TempWorkspace() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ralph-bench-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  m_root = std::filesystem::canonical(pattern);
  std::filesystem::create_directories(m_root / "src");
  std::ofstream(m_root / "README.md") << std::string(2000, 'r') << '\n';
  for (int i = 0; i < 12; ++i) {
    std::string source;
    for (int line = 0; source.size() < 2000; ++line) {
      source += fmt::format("int function_{}_{}(int x) {{ return x * {}; }}\n", i, line, line);
    }
    std::ofstream(m_root / fmt::format("src/parser_{}.cpp", i)) << source;
  }
}

TempWorkspace::~TempWorkspace() {
  std::error_code ec;
  std::filesystem::remove_all(m_root, ec);
}

} // namespace ralph::bench
