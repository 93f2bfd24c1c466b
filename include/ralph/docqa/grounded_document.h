#pragma once

#include "ralph/docqa/verbatim.h"

#include <mutex>
#include <string>
#include <string_view>

namespace ralph::docqa {

// The document a QA run is grounded in, shared by its verifiers and the final report: its text
// (which must outlive this object) and one verbatim index, built level by level on first need.
// find() is thread-safe, so verifiers on several threads may share one document.
class GroundedDocument {
public:
  GroundedDocument(std::string name, std::string_view text)
      : m_name(std::move(name)), m_text(text), m_index(text) {}

  const std::string& name() const { return m_name; }
  std::string_view text() const { return m_text; }

  QuoteMatch find(std::string_view quote, MatchLevel loosest) const {
    const std::lock_guard lock(m_mutex);
    return m_index.find(quote, loosest);
  }

private:
  std::string m_name;
  std::string_view m_text;
  mutable std::mutex m_mutex;
  mutable VerbatimIndex m_index;
};

} // namespace ralph::docqa
