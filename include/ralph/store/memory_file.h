#pragma once

#include "ralph/core/error.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace ralph::store {

// Seed 003's persistent memory file for task mode: Markdown made of blocks
//   ## Iter N - <ISO 8601 time>
//   <text>
// appended one per attempt, and trimmed oldest block first to a character budget (default 1500)
// with a line `[trimmed K older block(s)]` at the top that counts every block ever trimmed. That
// line is not a block: later trims add to its count instead of trimming it. The newest block is
// always kept whole, even when it alone exceeds the budget. The budget bounds the whole text, the
// count line included. Text before the first block (a hand-written preamble) is kept after the
// count line; it counts toward the budget but is never trimmed. Lines of a new block's text that
// would read as block headers are escaped ("\## Iter 2") so each attempt stays one block.

// The memory text with `block` appended and trimmed to `budget_chars` (Unicode code points).
std::string append_memory_block(std::string_view memory, int iteration, std::string_view time,
                                std::string_view text, std::size_t budget_chars = 1500);

// Reads the file (missing: empty), appends and trims as above, and writes it back atomically,
// holding a lock on `.<name>.lock` beside it so concurrent appenders never lose a block.
Result<std::string> append_memory_file(const std::filesystem::path& path, int iteration,
                                       std::string_view time, std::string_view text,
                                       std::size_t budget_chars = 1500);

} // namespace ralph::store
