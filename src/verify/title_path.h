#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph::verify {

// The titles above a line of an indented tree of tests (describe blocks, suites, TAP subtests),
// by indentation. Lines of output are read one after another, most of them indented: a title
// replaces the one at its indentation or deeper in place, so reading allocates only when a title
// outgrows the one it replaces.
class TitlePath {
public:
  void clear() { m_size = 0; }

  // `title` at `indent`: the titles at that indentation or deeper are closed.
  void enter(std::size_t indent, std::string_view title) {
    while (m_size > 0 && m_titles[m_size - 1].first >= indent) {
      --m_size;
    }
    if (m_size == m_titles.size()) {
      m_titles.emplace_back();
    }
    m_titles[m_size].first = indent;
    m_titles[m_size].second.assign(title);
    ++m_size;
  }

  // The titles less indented than `indent`, each followed by `separator`: "suite > ".
  std::string above(std::size_t indent, std::string_view separator) const {
    std::string out;
    for (std::size_t i = 0; i < m_size && m_titles[i].first < indent; ++i) {
      out.append(m_titles[i].second).append(separator);
    }
    return out;
  }

private:
  std::vector<std::pair<std::size_t, std::string>> m_titles; // [0, m_size) are open
  std::size_t m_size = 0;
};

} // namespace ralph::verify
