#include "text_folding.h"

#include "ralph/core/text.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace ralph::docqa {
namespace {

// Typographic folding of single code points, sorted by code point. Full-width forms
// (U+FF01-U+FF5E) are a range and handled apart.
struct Replacement {
  char32_t from;
  std::string_view to;
};
constexpr std::array k_typographic = std::to_array<Replacement>({
    {0x00AA, "a"},      {0x00AB, "\""},     {0x00B2, "2"},      {0x00B3, "3"},
    {0x00B4, "'"},      {0x00B5, "\u03BC"}, {0x00B9, "1"},      {0x00BA, "o"},
    {0x00BB, "\""},     {0x00BC, "1/4"},    {0x00BD, "1/2"},    {0x00BE, "3/4"},
    {0x0132, "IJ"},     {0x0133, "ij"},     {0x017F, "s"},      {0x02BB, "'"},
    {0x02BC, "'"},      {0x037E, ";"},      {0x2010, "-"},      {0x2011, "-"},
    {0x2012, "-"},      {0x2013, "-"},      {0x2014, "-"},      {0x2015, "-"},
    {0x2018, "'"},      {0x2019, "'"},      {0x201A, "'"},      {0x201B, "'"},
    {0x201C, "\""},     {0x201D, "\""},     {0x201E, "\""},     {0x201F, "\""},
    {0x2024, "."},      {0x2025, ".."},     {0x2026, "..."},    {0x2032, "'"},
    {0x2033, "\""},     {0x2039, "'"},      {0x203A, "'"},      {0x2044, "/"},
    {0x2070, "0"},      {0x2074, "4"},      {0x2075, "5"},      {0x2076, "6"},
    {0x2077, "7"},      {0x2078, "8"},      {0x2079, "9"},      {0x2080, "0"},
    {0x2081, "1"},      {0x2082, "2"},      {0x2083, "3"},      {0x2084, "4"},
    {0x2085, "5"},      {0x2086, "6"},      {0x2087, "7"},      {0x2088, "8"},
    {0x2089, "9"},      {0x2116, "No"},     {0x2120, "SM"},     {0x2122, "TM"},
    {0x2150, "1/7"},    {0x2151, "1/9"},    {0x2152, "1/10"},   {0x2153, "1/3"},
    {0x2154, "2/3"},    {0x2155, "1/5"},    {0x2156, "2/5"},    {0x2157, "3/5"},
    {0x2158, "4/5"},    {0x2159, "1/6"},    {0x215A, "5/6"},    {0x215B, "1/8"},
    {0x215C, "3/8"},    {0x215D, "5/8"},    {0x215E, "7/8"},    {0x2212, "-"},
    {0xFB00, "ff"},     {0xFB01, "fi"},     {0xFB02, "fl"},     {0xFB03, "ffi"},
    {0xFB04, "ffl"},    {0xFB05, "st"},     {0xFB06, "st"},     {0xFE58, "-"},
    {0xFE63, "-"},      {0xFFE0, "\u00A2"}, {0xFFE1, "\u00A3"}, {0xFFE2, "\u00AC"},
    {0xFFE4, "\u00A6"}, {0xFFE5, "\u00A5"}, {0xFFE6, "\u20A9"},
});

constexpr std::size_t utf8_size(char32_t cp) {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

// Sorted for the binary search, and no replacement longer than k_max_fold_growth times its
// source (case folding keeps lengths but for İ, 2 bytes to 3), which the view builder relies on.
static_assert(std::is_sorted(k_typographic.begin(), k_typographic.end(),
                             [](const Replacement& a, const Replacement& b) {
                               return a.from < b.from;
                             }));
static_assert(std::all_of(k_typographic.begin(), k_typographic.end(), [](const Replacement& r) {
  return !r.to.empty() && r.to.size() <= k_max_fold_growth * utf8_size(r.from);
}));

bool is_space(char32_t cp) {
  switch (cp) {
  case 0x09:
  case 0x0A:
  case 0x0B:
  case 0x0C:
  case 0x0D:
  case 0x20:
  case 0x85:
  case 0xA0:
  case 0x1680:
  case 0x2028:
  case 0x2029:
  case 0x202F:
  case 0x205F:
  case 0x3000:
    return true;
  default:
    return cp >= 0x2000 && cp <= 0x200A;
  }
}

// Dropped from typographic on: soft hyphen, zero-width space and (non-)joiners, word joiner,
// byte order mark.
bool is_ignorable(char32_t cp) {
  return cp == 0x00AD || (cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 || cp == 0xFEFF;
}

// Upper-case letters with a one-to-one lower case (ß, ẞ and İ are handled by the caller).
char32_t to_lower(char32_t cp) {
  const bool even = cp % 2 == 0;
  if (cp < 0x80) {
    return cp >= 'A' && cp <= 'Z' ? cp + 0x20 : cp;
  }
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) {
    return cp + 0x20;
  }
  if (cp >= 0x100 && cp <= 0x17F) {
    if ((cp <= 0x137 && even && cp != 0x130) || (cp >= 0x14A && cp <= 0x177 && even) ||
        (cp >= 0x139 && cp <= 0x148 && !even) || (cp >= 0x179 && cp <= 0x17E && !even)) {
      return cp + 1;
    }
    return cp == 0x178 ? 0xFF : cp == 0x17F ? 's' : cp;
  }
  if (cp >= 0x386 && cp <= 0x3AB) {
    if (cp >= 0x391 && cp != 0x3A2) {
      return cp + 0x20;
    }
    switch (cp) {
    case 0x386:
      return 0x3AC;
    case 0x388:
    case 0x389:
    case 0x38A:
      return cp + 0x25;
    case 0x38C:
      return 0x3CC;
    case 0x38E:
    case 0x38F:
      return cp + 0x3F;
    default:
      return cp;
    }
  }
  if (cp == 0x3C2) {
    return 0x3C3;
  }
  if (cp >= 0x400 && cp <= 0x52F) {
    if (cp <= 0x40F) {
      return cp + 0x50;
    }
    if (cp <= 0x42F) {
      return cp + 0x20;
    }
    if (cp == 0x4C0) {
      return 0x4CF;
    }
    if (((cp >= 0x460 && cp <= 0x481) || (cp >= 0x48A && cp <= 0x4BF) || cp >= 0x4D0) && even) {
      return cp + 1;
    }
    return cp >= 0x4C1 && cp <= 0x4CE && !even ? cp + 1 : cp;
  }
  if (((cp >= 0x1E00 && cp <= 0x1E95) || (cp >= 0x1EA0 && cp <= 0x1EFF)) && even) {
    return cp + 1;
  }
  return cp;
}

std::size_t encode(char32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

// The code point of the valid sequence of `length` bytes at `s`.
char32_t decode(const unsigned char* s, std::size_t length) {
  switch (length) {
  case 1:
    return s[0];
  case 2:
    return ((s[0] & 0x1FU) << 6) | (s[1] & 0x3FU);
  case 3:
    return ((s[0] & 0x0FU) << 12) | ((s[1] & 0x3FU) << 6) | (s[2] & 0x3FU);
  default:
    return ((s[0] & 0x07U) << 18) | ((s[1] & 0x3FU) << 12) | ((s[2] & 0x3FU) << 6) | (s[3] & 0x3FU);
  }
}

// Case folding of one code point, written as UTF-8; returns the bytes written.
std::size_t write_casefolded(char32_t cp, char* out) {
  if (cp == 0xDF || cp == 0x1E9E) {
    out[0] = 's';
    out[1] = 's';
    return 2;
  }
  if (cp == 0x130) {
    out[0] = 'i';
    return 1 + encode(0x307, out + 1);
  }
  return encode(to_lower(cp), out);
}

// A valid, non-space, non-ignorable code point folded at typographic or casefold.
std::size_t write_folded(char32_t cp, MatchLevel level, char* out) {
  const bool casefold = level == MatchLevel::casefold;
  if (cp >= 0xFF01 && cp <= 0xFF5E) {
    // Full-width ASCII folds as the ASCII character would (Ａ like A, ｀ like `).
    out[0] = ascii_fold(level).to[cp - 0xFEE0];
    return 1;
  }
  const auto* found =
      std::lower_bound(k_typographic.begin(), k_typographic.end(), cp,
                       [](const Replacement& r, char32_t value) { return r.from < value; });
  if (found == k_typographic.end() || found->from != cp) {
    return casefold ? write_casefolded(cp, out) : encode(cp, out);
  }
  if (!casefold) {
    std::memcpy(out, found->to.data(), found->to.size());
    return found->to.size();
  }
  std::size_t written = 0;
  std::size_t pos = 0;
  while (pos < found->to.size()) {
    const std::size_t length = utf8_sequence_length(found->to.substr(pos));
    const auto* bytes = reinterpret_cast<const unsigned char*>(found->to.data() + pos);
    written += write_casefolded(decode(bytes, length), out + written);
    pos += length;
  }
  return written;
}

constexpr AsciiFold make_ascii_fold(MatchLevel level) {
  AsciiFold fold;
  for (std::size_t c = 0; c < fold.to.size(); ++c) {
    fold.to[c] = static_cast<char>(c);
  }
  if (level == MatchLevel::exact) {
    return fold;
  }
  for (const std::size_t c : {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20}) { // \t \n \v \f \r space
    fold.space[c] = true;
    fold.to[c] = ' ';
  }
  if (level >= MatchLevel::typographic) {
    fold.to['`'] = '\'';
  }
  if (level >= MatchLevel::casefold) {
    for (std::size_t c = 'A'; c <= 'Z'; ++c) {
      fold.to[c] = static_cast<char>(c - 'A' + 'a');
    }
  }
  return fold;
}

constexpr std::array k_ascii_folds = {
    make_ascii_fold(MatchLevel::exact), make_ascii_fold(MatchLevel::whitespace),
    make_ascii_fold(MatchLevel::typographic), make_ascii_fold(MatchLevel::casefold)};

} // namespace

const AsciiFold& ascii_fold(MatchLevel level) {
  return k_ascii_folds[static_cast<std::size_t>(level)];
}

FoldStep fold_step(std::string_view text, std::size_t pos, MatchLevel level, bool& in_space,
                   char* out) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  if (lead < 0x80) {
    const AsciiFold& ascii = ascii_fold(level);
    if (ascii.space[lead] && in_space) {
      return {1, 0};
    }
    in_space = ascii.space[lead];
    out[0] = ascii.to[lead];
    return {1, 1};
  }
  const std::size_t length = utf8_sequence_length(text.substr(pos));
  if (length == 0) {
    in_space = false;
    // A stray continuation byte gets 0xFF (never in UTF-8) before it: dropping a soft hyphen
    // between a stray lead byte and it must not join the two into a character, which the
    // stricter levels would then match and the looser ones, reading two bytes, would not.
    if (level != MatchLevel::exact && (lead & 0xC0U) == 0x80U) {
      out[0] = '\xFF';
      out[1] = static_cast<char>(lead);
      return {1, 2};
    }
    // A marked byte folds as it is, so folding twice changes nothing.
    if (level != MatchLevel::exact && lead == 0xFFU && pos + 1 < text.size() &&
        (static_cast<unsigned char>(text[pos + 1]) & 0xC0U) == 0x80U) {
      out[0] = '\xFF';
      out[1] = text[pos + 1];
      return {2, 2};
    }
    out[0] = static_cast<char>(lead);
    return {1, 1};
  }
  if (level == MatchLevel::exact) {
    std::memcpy(out, text.data() + pos, length);
    return {length, length};
  }
  const char32_t cp = decode(reinterpret_cast<const unsigned char*>(text.data() + pos), length);
  if (is_space(cp)) {
    if (in_space) {
      return {length, 0};
    }
    in_space = true;
    out[0] = ' ';
    return {length, 1};
  }
  if (level >= MatchLevel::typographic && is_ignorable(cp)) {
    return {length, 0};
  }
  in_space = false;
  if (level == MatchLevel::whitespace) {
    std::memcpy(out, text.data() + pos, length);
    return {length, length};
  }
  return {length, write_folded(cp, level, out)};
}

std::string fold_text(std::string_view text, MatchLevel level) {
  if (level == MatchLevel::exact) {
    return std::string(text);
  }
  std::string folded;
  folded.reserve(text.size());
  std::array<char, k_max_fold_bytes> buffer{};
  bool in_space = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const FoldStep step = fold_step(text, pos, level, in_space, buffer.data());
    folded.append(buffer.data(), step.written);
    pos += step.consumed;
  }
  return folded;
}

std::string fold_quote(std::string_view quote, MatchLevel level) {
  std::string folded = fold_text(quote, level);
  if (level == MatchLevel::exact) {
    return folded;
  }
  if (!folded.empty() && folded.back() == ' ') {
    folded.pop_back();
  }
  if (!folded.empty() && folded.front() == ' ') {
    folded.erase(0, 1);
  }
  return folded;
}

std::size_t code_point_start(std::string_view text, std::size_t pos) {
  constexpr std::size_t k_longest = 4;
  if (pos >= text.size() || (static_cast<unsigned char>(text[pos]) & 0xC0) != 0x80) {
    return pos;
  }
  for (std::size_t back = 1; back < k_longest && back <= pos; ++back) {
    const auto byte = static_cast<unsigned char>(text[pos - back]);
    if ((byte & 0xC0) == 0x80) {
      continue;
    }
    return utf8_sequence_length(text.substr(pos - back)) > back ? pos - back : pos;
  }
  return pos;
}

std::size_t code_point_end(std::string_view text, std::size_t pos) {
  if (pos == 0 || pos > text.size()) {
    return pos;
  }
  const std::size_t start = code_point_start(text, pos - 1);
  const std::size_t length = std::max<std::size_t>(1, utf8_sequence_length(text.substr(start)));
  return std::max(pos, start + length);
}

} // namespace ralph::docqa
