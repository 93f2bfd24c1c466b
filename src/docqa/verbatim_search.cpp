#include "verbatim_search.h"

#include "text_folding.h"
#include "verbatim_view.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

namespace ralph::docqa {
namespace {

// Whitespace, or a character typographic folding drops: what may lie at the edges of a match
// at a stricter level and not at a looser one. Sets `length` to the code point's length.
bool is_blank(std::string_view document, std::size_t pos, std::size_t& length) {
  std::array<char, k_max_fold_bytes> out{};
  bool in_space = true; // so whitespace, too, folds to nothing
  const FoldStep step = fold_step(document, pos, MatchLevel::typographic, in_space, out.data());
  length = step.consumed;
  return step.written == 0;
}

// `span` widened over the blanks on both sides. It then starts at the document start or right
// after a character that is not blank, where the fold at every level is outside a whitespace
// run, so folding it alone gives the same text as folding the whole document.
Span widen_over_blanks(std::string_view document, Span span) {
  std::size_t length = 0;
  while (span.begin > 0) {
    const std::size_t before = code_point_start(document, span.begin - 1);
    if (!is_blank(document, before, length)) {
      break;
    }
    span.begin = before;
  }
  while (span.end < document.size() && is_blank(document, span.end, length)) {
    span.end += length;
  }
  return span;
}

// Where the window after one ending at `end` starts: right after a character that is not blank
// (or at `floor`, itself such a place), with at least `characters` non-blank characters between
// it and `end`. Each of them folds to at least one byte, so a match of that many folded bytes
// that runs past `end` starts at or after the returned position.
std::size_t overlap_start(std::string_view document, std::size_t end, std::size_t characters,
                          std::size_t floor) {
  std::size_t length = 0;
  std::size_t counted = 0;
  std::size_t pos = end;
  while (pos > floor) {
    const std::size_t before = code_point_start(document, pos - 1);
    if (!is_blank(document, before, length)) {
      if (counted == characters) {
        return pos; // right after this non-blank character
      }
      ++counted;
    }
    pos = before;
  }
  return floor;
}

} // namespace

std::vector<std::size_t> find_all(std::string_view haystack, std::string_view needle) {
  std::vector<std::size_t> starts;
  if (needle.empty()) {
    return starts;
  }
  // glibc's memmem skips on pairs of bytes: several times faster on text than a Horspool
  // searcher, which skips on single letters that a long quote mostly contains.
  std::size_t from = 0;
  while (from < haystack.size()) {
    const void* found =
        memmem(haystack.data() + from, haystack.size() - from, needle.data(), needle.size());
    if (found == nullptr) {
      break;
    }
    const auto start = static_cast<std::size_t>(static_cast<const char*>(found) - haystack.data());
    const std::size_t end = start + needle.size();
    if (code_point_start(haystack, start) == start && code_point_end(haystack, end) == end) {
      starts.push_back(start);
    }
    from = start + 1;
  }
  return starts;
}

std::vector<Span> find_in_windows(std::string_view document, std::string_view folded_quote,
                                  MatchLevel level, std::size_t window, std::size_t& peak_bytes) {
  std::vector<Span> spans;
  if (folded_quote.empty()) {
    return spans;
  }
  std::size_t begin = 0;
  std::size_t end = 0;
  for (;;) {
    const std::size_t reported = end; // matches ending here or before came from the last window
    end = std::min(document.size(), end + window);
    end = end < document.size() ? std::max(code_point_start(document, end), reported + 1) : end;
    end = code_point_end(document, end);
    const VerbatimView view(document.substr(begin, end - begin), level);
    peak_bytes = std::max(peak_bytes, view.memory_bytes());
    for (Span span : view.source_spans(find_all(view.text(), folded_quote), folded_quote.size())) {
      span.begin += begin;
      span.end += begin;
      if (span.end > reported) {
        spans.push_back(span);
      }
    }
    if (end >= document.size()) {
      return spans;
    }
    begin = overlap_start(document, end, folded_quote.size(), begin);
  }
}

std::vector<Span> find_stricter(std::string_view document, std::span<const Span> looser,
                                std::string_view folded_quote, MatchLevel level) {
  // An occurrence is known by its first code point and which of that code point's folded bytes
  // it starts on ("." three times in "…"), so ones found twice (close occurrences share
  // regions) can be told from distinct ones.
  struct Found {
    Span span;
    std::size_t skipped = 0;
  };
  std::vector<Found> found;
  std::string folded;
  std::vector<Span> producers; // per folded byte, the code point it came from
  std::array<char, k_max_fold_bytes> out{};
  for (const Span& span : looser) {
    const Span region = widen_over_blanks(document, span);
    folded.clear();
    producers.clear();
    bool in_space = false;
    for (std::size_t pos = region.begin; pos < region.end;) {
      const FoldStep step = fold_step(document, pos, level, in_space, out.data());
      folded.append(out.data(), step.written);
      producers.insert(producers.end(), step.written, Span{pos, pos + step.consumed});
      pos += step.consumed;
    }
    for (const std::size_t start : find_all(folded, folded_quote)) {
      const Span& first = producers[start];
      std::size_t skipped = 0;
      while (skipped < start && producers[start - skipped - 1].begin == first.begin) {
        ++skipped;
      }
      found.push_back({{first.begin, producers[start + folded_quote.size() - 1].end}, skipped});
    }
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.span.begin < b.span.begin || (a.span.begin == b.span.begin && a.skipped < b.skipped);
  });
  std::vector<Span> spans;
  spans.reserve(found.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (i == 0 || found[i].span.begin != found[i - 1].span.begin ||
        found[i].skipped != found[i - 1].skipped) {
      spans.push_back(found[i].span);
    }
  }
  return spans;
}

} // namespace ralph::docqa
