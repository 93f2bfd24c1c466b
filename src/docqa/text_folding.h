#pragma once

// The per-code-point folding behind the match levels of verbatim.h. Private to src/docqa; the
// rules are listed in verbatim.h.

#include "ralph/docqa/verbatim.h"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace ralph::docqa {

// The most bytes one code point (or invalid byte) folds to; output buffers handed to
// fold_step() must hold this many.
inline constexpr std::size_t k_max_fold_bytes = 8;

// No code point folds to more than this many bytes per byte it occupies in the source, so a
// folded text is at most this many times as long as its source.
inline constexpr std::size_t k_max_fold_growth = 2;

// How one ASCII byte folds at a level: the byte it becomes, and whether it is whitespace (which
// becomes one space, or nothing right after another space).
struct AsciiFold {
  std::array<char, 128> to{};
  std::array<bool, 128> space{};
};
const AsciiFold& ascii_fold(MatchLevel level);

// What fold_step() did: source bytes read and folded bytes written.
struct FoldStep {
  std::size_t consumed = 0;
  std::size_t written = 0;
};

// Folds the code point starting at `text[pos]` (or, when no valid UTF-8 sequence starts there,
// the single byte, which stays as it is but for a stray continuation byte, which gets 0xFF
// before it above exact) at `level` into `out` (k_max_fold_bytes at least).
// `in_space` carries the whitespace run across calls: true after a space was written, so the
// rest of the run writes nothing; ignorable code points (typographic and looser) leave it as it
// is. At `exact` the code point is copied.
FoldStep fold_step(std::string_view text, std::size_t pos, MatchLevel level, bool& in_space,
                   char* out);

// All of `text` folded at `level`, starting outside a whitespace run (exact: unchanged).
std::string fold_text(std::string_view text, MatchLevel level);

// fold_text() without the space a leading or trailing whitespace run leaves: what a quote is
// searched for at `level` (exact: the quote unchanged).
std::string fold_quote(std::string_view quote, MatchLevel level);

// The start of the code point that contains `text[pos]` (`pos` itself when it starts one, is
// an invalid byte, or is text.size()).
std::size_t code_point_start(std::string_view text, std::size_t pos);

// The end of the code point that contains `text[pos - 1]`, so [x, code_point_end(text, pos))
// never ends inside a code point.
std::size_t code_point_end(std::string_view text, std::size_t pos);

} // namespace ralph::docqa
