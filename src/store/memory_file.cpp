#include "ralph/store/memory_file.h"

#include "atomic_file.h"
#include "file_lock.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/store/trace_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace ralph::store {
namespace {

// The memory text taken apart. Rendered as its parts (marker line, preamble, blocks), each
// ending in a newline, joined by blank lines.
struct Memory {
  std::uint64_t trimmed = 0;       // blocks trimmed so far, from the `[trimmed K ...]` line
  std::string preamble;            // hand-written text before the first block, kept verbatim
  std::vector<std::string> blocks; // "## Iter N - time\n<text>\n", oldest first
};

bool is_ascii_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// "## Iter <digits>" followed by the end of the line or a separator: " - <time>" as written, or
// whatever a hand edit left ("## Iter 3: notes").
bool is_block_header(std::string_view line) {
  constexpr std::string_view prefix = "## Iter ";
  if (!line.starts_with(prefix)) {
    return false;
  }
  const std::string_view rest = line.substr(prefix.size());
  const std::size_t digits = rest.find_first_not_of("0123456789");
  if (digits == 0 || rest.empty()) {
    return false;
  }
  return digits == std::string_view::npos || !is_ascii_alnum(rest[digits]);
}

// The count K of a `[trimmed K older block(s)]` line (also "block" or "blocks", surrounding
// spaces ignored), or nullopt when `line` is anything else.
std::optional<std::uint64_t> trimmed_count(std::string_view line) {
  line = trim(line);
  constexpr std::string_view prefix = "[trimmed ";
  if (!line.starts_with(prefix)) {
    return std::nullopt;
  }
  line.remove_prefix(prefix.size());
  std::uint64_t count = 0;
  const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), count);
  if (ec != std::errc()) {
    return std::nullopt;
  }
  const std::string_view rest = line.substr(static_cast<std::size_t>(end - line.data()));
  if (rest != " older block(s)]" && rest != " older blocks]" && rest != " older block]") {
    return std::nullopt;
  }
  return count;
}

// Counts from a hand-edited file can be anything: saturate rather than wrap to zero.
std::uint64_t add_counts(std::uint64_t a, std::uint64_t b) {
  return a + std::min(b, std::numeric_limits<std::uint64_t>::max() - a);
}

std::string marker_line(std::uint64_t trimmed) {
  return fmt::format("[trimmed {} older block(s)]\n", trimmed);
}

// Lines joined back with '\n' after dropping blank lines at both ends; "" or ending in '\n'.
std::string join_lines(const std::vector<std::string_view>& lines) {
  std::size_t first = 0;
  std::size_t last = lines.size();
  while (first < last && trim(lines[first]).empty()) {
    ++first;
  }
  while (last > first && trim(lines[last - 1]).empty()) {
    --last;
  }
  std::string out;
  for (std::size_t i = first; i < last; ++i) {
    out.append(lines[i]);
    out += '\n';
  }
  return out;
}

// Lines before the first block are the preamble, except marker lines, whose counts add up (a
// hand edit may have left two). Everything from a header to the next belongs to that block.
Memory parse(std::string_view text) {
  Memory memory;
  std::vector<std::string_view> preamble;
  std::vector<std::vector<std::string_view>> blocks;
  for (const std::string_view line : split_lines(text)) {
    if (is_block_header(line)) {
      blocks.push_back({line});
    } else if (!blocks.empty()) {
      blocks.back().push_back(line);
    } else if (const auto count = trimmed_count(line)) {
      memory.trimmed = add_counts(memory.trimmed, *count);
    } else {
      preamble.push_back(line);
    }
  }
  memory.preamble = join_lines(preamble);
  for (const auto& lines : blocks) {
    memory.blocks.push_back(join_lines(lines));
  }
  return memory;
}

// The new block. Lines of `text` that would read as block headers are escaped as Markdown
// ("\## Iter 2") so the file keeps exactly one block per attempt.
std::string make_block(int iteration, std::string_view time, std::string_view text) {
  std::string block = fmt::format("## Iter {} - {}\n", iteration, time);
  const std::string body = join_lines(split_lines(text));
  for (const std::string_view line : split_lines(body)) {
    if (is_block_header(line)) {
      block += '\\';
    }
    block.append(line);
    block += '\n';
  }
  return block;
}

} // namespace

std::string append_memory_block(std::string_view memory, int iteration, std::string_view time,
                                std::string_view text, std::size_t budget_chars) {
  Memory parsed = parse(memory);
  parsed.blocks.push_back(make_block(iteration, time, text));
  const std::size_t count = parsed.blocks.size();
  // kept[i]: code points of blocks i..count-1 with the blank lines between them.
  std::vector<std::size_t> kept(count + 1, 0);
  for (std::size_t i = count; i-- > 0;) {
    kept[i] = kept[i + 1] + utf8_length(parsed.blocks[i]) + (i + 1 < count ? 1 : 0);
  }
  const std::size_t preamble =
      parsed.preamble.empty() ? 0 : utf8_length(parsed.preamble) + 1; // + its blank line
  // Everything counts toward the budget, the marker line included: the budget bounds what the
  // file adds to a prompt. The newest block stays even when it alone is over.
  std::size_t dropped = 0;
  const auto total = [&](std::size_t drop) {
    const std::uint64_t trimmed = add_counts(parsed.trimmed, drop);
    return (trimmed > 0 ? marker_line(trimmed).size() + 1 : 0) + preamble + kept[drop];
  };
  while (dropped + 1 < count && total(dropped) > budget_chars) {
    ++dropped;
  }
  std::string out;
  const auto add_part = [&](std::string_view part) {
    if (!out.empty()) {
      out += '\n';
    }
    out.append(part);
  };
  if (const std::uint64_t trimmed = add_counts(parsed.trimmed, dropped); trimmed > 0) {
    add_part(marker_line(trimmed));
  }
  if (!parsed.preamble.empty()) {
    add_part(parsed.preamble);
  }
  for (std::size_t i = dropped; i < count; ++i) {
    add_part(parsed.blocks[i]);
  }
  return out;
}

Result<std::string> append_memory_file(const std::filesystem::path& path, int iteration,
                                       std::string_view time, std::string_view text,
                                       std::size_t budget_chars) {
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
  }
  // Read, append and write under a lock beside the file, so two runs sharing one memory file
  // never lose each other's blocks. (The file itself is replaced on each write, so it cannot
  // carry the lock.)
  TRY_ASSIGN(
      const FileLock lock,
      FileLock::acquire(path.parent_path() / fmt::format(".{}.lock", path.filename().string())));
  TRY_ASSIGN(const std::optional<std::string> existing, read_file_if_exists(path));
  std::string updated =
      append_memory_block(existing.value_or(std::string()), iteration, time, text, budget_chars);
  TRY(write_file_atomically(path, updated));
  return updated;
}

} // namespace ralph::store
