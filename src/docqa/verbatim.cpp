#include "ralph/docqa/verbatim.h"

#include "text_folding.h"
#include "verbatim_search.h"
#include "verbatim_view.h"

#include "ralph/core/text.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace ralph::docqa {
namespace {

MatchLevel next(MatchLevel level) {
  return static_cast<MatchLevel>(static_cast<int>(level) + 1);
}

} // namespace

struct VerbatimIndex::Level {
  VerbatimView view;
};

VerbatimIndex::VerbatimIndex(std::string_view document, std::size_t kept_view, std::size_t window)
    : m_document(document), m_kept_view(kept_view), m_window(std::max<std::size_t>(window, 1)),
      m_levels(std::size(k_match_level_names)) {}

VerbatimIndex::~VerbatimIndex() = default;

VerbatimIndex::Level& VerbatimIndex::level(MatchLevel level) {
  std::unique_ptr<Level>& slot = m_levels[static_cast<std::size_t>(level)];
  if (!slot) {
    slot = std::make_unique<Level>(Level{VerbatimView(m_document, level)});
    m_peak_bytes = std::max(m_peak_bytes, memory_bytes());
  }
  return *slot;
}

QuoteMatch VerbatimIndex::find(std::string_view quote, MatchLevel loosest) {
  QuoteMatch match;
  // A quote with nothing visible in it (empty, whitespace, zero-width characters) would match
  // anywhere, which proves nothing.
  if (fold_quote(quote, MatchLevel::casefold).empty()) {
    return match;
  }
  // Only one level is searched in the whole document: the loosest accepted. Folding only
  // merges, so a quote not found there is nowhere at a stricter level, and where it is found at
  // a stricter level it is found around an occurrence at the loosest: those few stretches are
  // enough to tell the strictest level and its occurrences. Exact matches are looked for in the
  // whole document first while the loosest level is not built yet, since most quotes match
  // exactly and then no folded copy is needed at all.
  const bool built = m_levels[static_cast<std::size_t>(loosest)] != nullptr;
  if (loosest == MatchLevel::exact || !built) {
    const std::vector<std::size_t> starts = find_all(m_document, quote);
    if (!starts.empty()) {
      match.level = MatchLevel::exact;
      match.occurrences.reserve(starts.size());
      for (const std::size_t start : starts) {
        match.occurrences.push_back({start, start + quote.size()});
      }
      return match;
    }
    if (loosest == MatchLevel::exact) {
      return match;
    }
  }
  const std::string folded = fold_quote(quote, loosest);
  std::vector<Span> occurrences;
  if (m_document.size() > m_kept_view) {
    std::size_t window_bytes = 0;
    occurrences = find_in_windows(m_document, folded, loosest, m_window, window_bytes);
    m_peak_bytes = std::max(m_peak_bytes, memory_bytes() + window_bytes);
  } else {
    const VerbatimView& view = level(loosest).view;
    occurrences = view.source_spans(find_all(view.text(), folded), folded.size());
  }
  if (occurrences.empty()) {
    return match;
  }
  for (MatchLevel at = built ? MatchLevel::exact : MatchLevel::whitespace; at < loosest;
       at = next(at)) {
    std::vector<Span> stricter = find_stricter(m_document, occurrences, fold_quote(quote, at), at);
    if (!stricter.empty()) {
      match.level = at;
      match.occurrences = std::move(stricter);
      return match;
    }
  }
  match.level = loosest;
  match.occurrences = std::move(occurrences);
  return match;
}

std::size_t VerbatimIndex::memory_bytes() const {
  std::size_t bytes = 0;
  for (const std::unique_ptr<Level>& built : m_levels) {
    if (built) {
      bytes += built->view.memory_bytes();
    }
  }
  return bytes;
}

Location locate(std::string_view document, std::size_t offset) {
  const std::string_view before = document.substr(0, offset);
  Location location;
  // memchr from line to line: several times faster than counting byte by byte.
  std::size_t line_start = 0;
  while (const void* found =
             std::memchr(before.data() + line_start, '\n', before.size() - line_start)) {
    line_start = static_cast<std::size_t>(static_cast<const char*>(found) - before.data()) + 1;
    ++location.line;
  }
  // Code points that end at or before `offset`: one the offset falls inside is its column.
  std::size_t pos = line_start;
  while (pos < before.size()) {
    pos += std::max<std::size_t>(1, utf8_sequence_length(document.substr(pos)));
    if (pos > before.size()) {
      break;
    }
    ++location.column;
  }
  return location;
}

std::vector<Span> evidence_windows(std::span<const Span> used, std::size_t radius,
                                   std::string_view document) {
  std::vector<Span> windows;
  windows.reserve(used.size());
  for (const Span& span : used) {
    const std::size_t begin = std::min(span.begin, document.size());
    const std::size_t end = std::clamp(span.end, begin, document.size());
    windows.push_back({code_point_start(document, begin - std::min(begin, radius)),
                       code_point_end(document, end + std::min(radius, document.size() - end))});
  }
  std::sort(windows.begin(), windows.end(),
            [](const Span& a, const Span& b) { return a.begin < b.begin; });
  std::vector<Span> merged;
  for (const Span& window : windows) {
    if (!merged.empty() && window.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, window.end);
      continue;
    }
    merged.push_back(window);
  }
  return merged;
}

} // namespace ralph::docqa
