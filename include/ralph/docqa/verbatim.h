#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace ralph::docqa {

// How loosely a quote may match the document, strictest first. Each level includes the ones
// before it.
enum class MatchLevel {
  exact,       // byte for byte
  whitespace,  // runs of whitespace (any Unicode space, tabs, newlines) compare as one space
  typographic, // and curly/straight quotes, dashes, non-breaking and thin spaces, ellipsis,
               // ligatures and full-width forms (NFKC-style compatibility folding) compare equal
  casefold,    // and letters compare case-insensitively
};

const char* to_string(MatchLevel level);
std::optional<MatchLevel> parse_match_level(std::string_view text);

// A byte range [begin, end) of the original document.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

struct QuoteMatch {
  std::optional<MatchLevel> level; // the strictest level it was found at; nullopt: not found
  std::vector<Span> occurrences;   // every occurrence at that level, in document order
};

// A document prepared for verbatim checks. The normalised view of each level, with a compact map
// from its offsets back to the document's, is built the first time that level is needed and
// kept, so checking many quotes costs one pass over the document per level. `document` must
// outlive the index. Not thread-safe.
class VerbatimIndex {
public:
  explicit VerbatimIndex(std::string_view document);
  ~VerbatimIndex();
  VerbatimIndex(const VerbatimIndex&) = delete;
  VerbatimIndex& operator=(const VerbatimIndex&) = delete;

  // Looks for `quote` at each level from exact up to `loosest`, stopping at the first that
  // finds it. An empty (or, after normalising, empty) quote is never found.
  QuoteMatch find(std::string_view quote, MatchLevel loosest);

  std::string_view document() const { return m_document; }

private:
  struct Level;
  Level& level(MatchLevel level);

  std::string_view m_document;
  std::vector<std::unique_ptr<Level>> m_levels;
};

// Line and column (1-based; the column counts code points) of a byte offset.
struct Location {
  std::size_t line = 1;
  std::size_t column = 1;
};
Location locate(std::string_view document, std::size_t offset);

// The text around the occurrences a verdict relies on: each span widened by `radius` bytes on
// both sides (clamped to the document, never cutting a UTF-8 character), sorted, and merged when
// they overlap or touch.
std::vector<Span> evidence_windows(std::span<const Span> used, std::size_t radius,
                                   std::string_view document);

} // namespace ralph::docqa
