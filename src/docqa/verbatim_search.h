#pragma once

// Substring search for the verbatim index. Private to src/docqa.

#include "ralph/docqa/verbatim.h"

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace ralph::docqa {

// Every start of `needle` in `haystack`, overlapping ones included, ascending, except those
// that would start or end inside a character (possible only for a needle that is not valid
// UTF-8: "\xC3" is not found in "é"). An empty needle is found nowhere.
std::vector<std::size_t> find_all(std::string_view haystack, std::string_view needle);

// The occurrences at `level` of a quote, given its occurrences `looser` (document spans, in
// order) at a looser level and `folded_quote`, its fold at `level`. Folding only merges, so an
// occurrence at `level` lies around one at the looser level, apart from whitespace and
// characters the looser level drops at its edges: only those stretches are folded and searched.
// Returns document spans in order, as VerbatimView::source_spans() would.
std::vector<Span> find_stricter(std::string_view document, std::span<const Span> looser,
                                std::string_view folded_quote, MatchLevel level);

// The document spans of every occurrence of `folded_quote` in the fold of `document` at `level`
// (whitespace or looser), as VerbatimView::source_spans() of a view of the whole would give them,
// folding about `window` source bytes at a time. Each window starts where the fold is outside a
// whitespace run and overlaps the one before by at least folded_quote.size() characters that
// fold to something, so a match across a window edge lies whole in the later window.
// `peak_bytes` gets the most bytes one window's view held.
std::vector<Span> find_in_windows(std::string_view document, std::string_view folded_quote,
                                  MatchLevel level, std::size_t window, std::size_t& peak_bytes);

} // namespace ralph::docqa
