#pragma once

#include "ralph/core/text.h"

// Private to the judge: the conversation history, and the text helpers the context assembly and
// the verdict parser share.

#include "ralph/verify/attempt.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::verify::judge_detail {

// "[… N chars trimmed …]"
std::string trimmed_marker(std::size_t chars);

// At most the first `max` bytes of some text, repaired to valid UTF-8. Only what can be shown is
// repaired: a 1 MB tool output costs no more than its first few kilobytes.
struct ClippedText {
  std::string text;      // valid UTF-8 (repairs may make it a little longer than `max`)
  std::size_t whole = 0; // size of the original text
  bool complete = true;  // `text` is the whole original
};
ClippedText clip(std::string_view raw, std::size_t max);

// `text` repaired to valid UTF-8 (core's to_valid_utf8), with a fast path for pure ASCII.
std::string repaired(std::string_view text);

// The clipped text when complete and within `keep` bytes; otherwise its first `keep` bytes (cut
// on a UTF-8 boundary) and a line with the trimmed marker counting the original's bytes.
std::string cut_tail(const ClippedText& clipped, std::size_t keep);

// The turns of the conversation before this attempt's answer, each rendered compactly (one line
// per message, tool calls and results summarised, long texts cut), oldest first. A turn is a user
// message and everything after it up to the next user message; messages before the first user
// message form a turn of their own. `total_turns` receives how many turns there are; only the
// newest `max_turns` are rendered.
std::vector<std::string> render_history_turns(const Attempt& attempt, int max_turns,
                                              int& total_turns);

} // namespace ralph::verify::judge_detail
