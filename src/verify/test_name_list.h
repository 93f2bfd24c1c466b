#pragma once

#include "ralph/verify/test_summary.h"

#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ralph::verify {

// Test names in first-seen order without repeats, at most k_max_test_names.
class TestNameList {
public:
  void add(std::string name) {
    if (m_names.size() < k_max_test_names && m_seen.insert(name).second) {
      m_names.push_back(std::move(name));
    }
  }
  std::size_t size() const { return m_names.size(); }
  const std::vector<std::string>& names() const { return m_names; }

private:
  std::vector<std::string> m_names;
  std::unordered_set<std::string> m_seen;
};

} // namespace ralph::verify
