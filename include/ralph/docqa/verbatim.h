#pragma once

#include "ralph/core/settings.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace ralph::docqa {

// How loosely a quote may match the document (MatchLevel, in core/settings.h because the
// configuration names it), strictest first. Each level includes the ones before it. A quote
// matches at a level when its fold at that level, without a leading or trailing space, occurs in
// the document's fold at that level. Folding runs over UTF-8 code points; bytes that are not
// valid UTF-8 stay as they are (and are not whitespace), except that above exact a stray
// continuation byte is marked so that dropping a character never joins stray bytes into one:
// whatever a level finds, every looser level finds too.
//  - exact: byte for byte.
//  - whitespace: every run of whitespace becomes one space: ASCII space, tab, CR, LF, VT, FF and
//    the Unicode spaces U+0085, U+00A0 (no-break), U+1680, U+2000-U+200A (en, em, thin, hair,
//    ...), U+2028, U+2029, U+202F, U+205F, U+3000.
//  - typographic: and NFKC-style compatibility folding:
//      ' for ‘ ’ ‚ ‛ ′ ` ´ ʻ ʼ ‹ ›; " for “ ” „ ‟ ″ « »; - for ‐ ‑ ‒ – — ― − ﹘ ﹣;
//      . .. ... for ․ ‥ …; / for ⁄; ff fi fl ffi ffl st st for the ligatures ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ;
//      IJ ij for Ĳ ĳ; full-width U+FF01-U+FF5E as ASCII; ￠ ￡ ￢ ￤ ￥ ￦ as ¢ £ ¬ ¦ ¥ ₩;
//      superscript and subscript digits as digits; ½ ¼ ¾ ⅐ ⅑ ⅒ ⅓ ... ⅞ as 1/2 1/4 ...;
//      ™ ℠ № as TM SM No; ª º as a o; µ as μ; ſ as s; the Greek question mark as ;
//    and soft hyphens, zero-width spaces and joiners (U+200B-U+200D), the word joiner (U+2060)
//    and byte order marks (U+FEFF) are dropped (inside a whitespace run too). No canonical
//    (de)composition: a precomposed "é" and "e" + U+0301 still differ.
//  - casefold: and upper case as lower case: ASCII, Latin-1 (ß and ẞ as ss), Latin Extended-A
//    (İ as i + U+0307; ı stays), Latin Extended Additional (U+1E00-U+1EFF), Greek (ς as σ too)
//    and Cyrillic (U+0400-U+052F), with full-width letters and the output of typographic
//    folding.
using ralph::MatchLevel;

// A byte range [begin, end) of the original document.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

struct QuoteMatch {
  std::optional<MatchLevel> level; // the strictest level it was found at; nullopt: not found
  std::vector<Span> occurrences;   // every occurrence at that level, in document order
};

// How much of a document a verbatim index folds and keeps whole: documents up to this size get
// one folded view per loosest level used (about 1.07 times the document); larger ones are folded
// k_verbatim_window bytes at a time for each quote not found byte for byte, so the index never
// holds more than about 70 MB, whatever the document's size.
inline constexpr std::size_t k_verbatim_kept_view = std::size_t{64} << 20;
inline constexpr std::size_t k_verbatim_window = std::size_t{16} << 20;

// A document prepared for verbatim checks. The normalised view of a level, with a compact map
// from its offsets back to the document's (a checkpoint per 256 bytes), is built the first time
// a quote is looked for with that level as the loosest, and kept: checking many quotes costs
// one pass over the document, and about one copy of it in memory, per loosest level used.
// Past `kept_view` bytes of document the view is not kept: each search folds `window` bytes at a
// time (windows overlapping by as much as a match could span), so memory stays bounded at the
// cost of one pass per quote. Stricter levels need no view of their own (see find()).
// `document` must outlive the index. Not thread-safe.
class VerbatimIndex {
public:
  explicit VerbatimIndex(std::string_view document, std::size_t kept_view = k_verbatim_kept_view,
                         std::size_t window = k_verbatim_window);
  ~VerbatimIndex();
  VerbatimIndex(const VerbatimIndex&) = delete;
  VerbatimIndex& operator=(const VerbatimIndex&) = delete;

  // Looks for `quote` at each level from exact up to `loosest` and reports the strictest that
  // finds it. Only the document itself (for exact matches, until the view is built) and the
  // view of `loosest` are searched whole; since folding only merges, a quote found at a
  // stricter level is found there around its occurrences at `loosest`. An empty (or, after
  // normalising, empty) quote is never found, and no match starts or ends inside a character.
  // Occurrences at exact are the bytes matched; at looser levels they run from the first to the
  // last code point behind the match (whitespace runs and dropped characters inside included, none
  // outside), so a match inside the fold of one code point ("fi" in "ﬁ", "." in "…") covers all of
  // it.
  QuoteMatch find(std::string_view quote, MatchLevel loosest);

  // Bytes held by the levels built so far (folded copies and their offset checkpoints).
  std::size_t memory_bytes() const;
  // The most bytes held at once so far, windows of large documents included.
  std::size_t peak_memory_bytes() const { return m_peak_bytes; }

  std::string_view document() const { return m_document; }

private:
  struct Level;
  Level& level(MatchLevel level);

  std::string_view m_document;
  std::size_t m_kept_view;
  std::size_t m_window;
  std::size_t m_peak_bytes = 0;
  std::vector<std::unique_ptr<Level>> m_levels;
};

// Line and column (1-based; the column counts code points, an invalid byte as one) of a byte
// offset; an offset past the end is taken as the end.
struct Location {
  std::size_t line = 1;
  std::size_t column = 1;
};
Location locate(std::string_view document, std::size_t offset);

// The default radius of evidence windows, in bytes.
inline constexpr std::size_t k_evidence_radius = 220;

// The text around the occurrences a verdict relies on: each span widened by `radius` bytes on
// both sides (clamped to the document; an edge inside a UTF-8 character moves outward to take
// all of it), sorted, and merged when they overlap or touch.
std::vector<Span> evidence_windows(std::span<const Span> used, std::size_t radius,
                                   std::string_view document);

} // namespace ralph::docqa
