#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ralph {

// `text` without leading and trailing ASCII whitespace (space, tab, CR, LF, FF, VT).
std::string_view trim(std::string_view text);

// The lines of `text`, split at '\n' and viewing into it. A final newline ends the last line
// rather than starting an empty one; "" has no lines.
std::vector<std::string_view> split_lines(std::string_view text);

// The first line of `text`, cut to `max_bytes` on a UTF-8 boundary; "…" marks that more followed
// (a cut, or further lines).
std::string first_line(std::string_view text, std::size_t max_bytes);

// `text` with ASCII letters in lower case; other bytes unchanged.
std::string to_lower_ascii(std::string_view text);
char to_lower_ascii(char c);

// True when `a` and `b` are equal but for the case of ASCII letters.
bool equals_ignoring_case(std::string_view a, std::string_view b);

// True when `text` begins with `prefix`, ignoring the case of ASCII letters.
bool starts_with_ignoring_case(std::string_view text, std::string_view prefix);

// The longest prefix of `text` no longer than `max_bytes` that does not end inside a UTF-8
// sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

// The longest suffix of `text` no longer than `max_bytes` that does not start inside a UTF-8
// sequence.
std::string_view utf8_suffix(std::string_view text, std::size_t max_bytes);

// `text` unchanged when it fits in `max_bytes`; otherwise its head and tail (each about half the
// budget, cut on UTF-8 boundaries) joined by a line saying how many bytes were left out. The
// result may exceed `max_bytes` by the length of that line.
std::string keep_head_and_tail(std::string_view text, std::size_t max_bytes);

// `text` as one /bin/sh word: in single quotes, each `'` written `'\''`.
std::string shell_quote(std::string_view text);

// Length of the valid UTF-8 sequence starting at `text[0]`, or 0 when it is not valid (overlong
// forms, surrogates, code points above U+10FFFF, truncation) or `text` is empty.
std::size_t utf8_sequence_length(std::string_view text);

// Appends `code` encoded as UTF-8; nothing for values past U+10FFFF.
void append_utf8(std::string& out, char32_t code);

// Code points in `text`: the bytes that do not continue a UTF-8 sequence.
std::size_t utf8_length(std::string_view text);

// True when `text` is entirely valid UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF).
bool is_valid_utf8(std::string_view text);

// Replaces bytes that are not valid UTF-8 with U+FFFD, so text from tools and files can go into
// JSON requests.
std::string to_valid_utf8(std::string_view text);

// The edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`, byte by byte:
// how far a typo is from a name, for "did you mean" hints.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name in `names` closest to `typed` (ignoring leading dashes), or "" when none is near
// enough to be a typo (one letter never is): at most one edit for short names, up to three for
// long ones; failing that, the only name `typed` begins (when it has three letters or more).
std::string closest_name(std::string_view typed, const std::vector<std::string>& names);

} // namespace ralph
