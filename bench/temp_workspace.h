#pragma once

#include <filesystem>

namespace ralph::bench {

// A small project in a fresh temporary directory, removed on destruction: a README and a dozen
// 2 KB C++ files under src/ (src/parser_0.cpp ... src/parser_11.cpp).
class TempWorkspace {
public:
  TempWorkspace();
  ~TempWorkspace();
  TempWorkspace(const TempWorkspace&) = delete;
  TempWorkspace& operator=(const TempWorkspace&) = delete;

  // Absolute and canonical, as ToolContext::workspace wants it.
  const std::filesystem::path& root() const { return m_root; }

private:
  std::filesystem::path m_root;
};

} // namespace ralph::bench
