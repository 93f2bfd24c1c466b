#include "verbatim_view.h"

#include "text_folding.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace ralph::docqa {
namespace {

// The most a stretch between two checkpoints can fold to: the stretch may end up to 3 bytes
// past the interval, in the middle of a code point; the word-at-a-time path stores 8 bytes where
// it may keep fewer.
constexpr std::size_t k_stretch_output = k_max_fold_growth * (k_checkpoint_interval + 3) + 8;

constexpr std::uint64_t k_ones = 0x0101010101010101;
constexpr std::uint64_t k_low = 0x7F7F7F7F7F7F7F7F;
constexpr std::uint64_t k_high = 0x8080808080808080;
constexpr bool k_little_endian = std::endian::native == std::endian::little;

// 0x80 in each byte of `x` that is zero, 0 in the others.
constexpr std::uint64_t zero_bytes(std::uint64_t x) {
  return ~(((x & k_low) + k_low) | x | k_low);
}

// 0x80 in each byte of eight bytes of text that does not fold to itself (or, at casefold, to
// its lower case) on its own: above 0x7F, below 0x20 (tabs, line breaks), a space right after a
// space and, from typographic on, a backtick.
std::uint64_t special_bytes(std::uint64_t word, MatchLevel level) {
  const std::uint64_t control = ~(((word & k_low) + k_ones * 0x60) | word) & k_high;
  const std::uint64_t spaces = zero_bytes(word ^ (k_ones * ' '));
  const std::uint64_t after_space = k_little_endian ? spaces << 8 : spaces >> 8;
  std::uint64_t special = (word & k_high) | control | (spaces & after_space);
  if (level >= MatchLevel::typographic) {
    special |= zero_bytes(word ^ (k_ones * '`'));
  }
  return special;
}

// How many bytes, in memory order, come before the first special one.
std::size_t plain_prefix(std::uint64_t special) {
  if (special == 0) {
    return sizeof special;
  }
  return static_cast<std::size_t>(k_little_endian ? std::countr_zero(special)
                                                  : std::countl_zero(special)) /
         8;
}

// A-Z lowered in each byte below 0x80 (the others come out wrong; callers use only bytes
// before the first special one).
std::uint64_t lower_ascii(std::uint64_t word) {
  const std::uint64_t low = word & k_low; // so the sums below carry into no other byte
  const std::uint64_t above_z = low + k_ones * (0x7F - 'Z');
  const std::uint64_t from_a = low + k_ones * (0x80 - 'A');
  return word | ((from_a & ~above_z & k_high) >> 2); // 0x20 into each upper-case letter
}

} // namespace

VerbatimView::VerbatimView(std::string_view document, MatchLevel level)
    : m_document(document), m_level(level) {
  // Folding rarely lengthens text (it mostly collapses and shortens), so the source size and a
  // little more is almost always enough; the untouched tail of the allocation costs no memory.
  reserve(0, document.size() + document.size() / 16 + k_stretch_output);
  m_checkpoints.reserve(document.size() / k_checkpoint_interval + 1);
  const AsciiFold& ascii = ascii_fold(level);
  const auto* source = reinterpret_cast<const unsigned char*>(document.data());
  std::size_t pos = 0;
  std::size_t used = 0;
  bool in_space = false;
  do {
    m_checkpoints.push_back({pos, used, in_space});
    reserve(used, k_stretch_output);
    char* out = m_text.get();
    const std::size_t stretch_end = std::min(document.size(), pos + k_checkpoint_interval);
    while (pos < stretch_end) {
      // Eight bytes at a time while the text is plain ASCII: they fold one to one, so the
      // word is stored whole and the cursor moves past the plain ones.
      if (stretch_end - pos >= sizeof(std::uint64_t)) {
        std::uint64_t word = 0;
        std::memcpy(&word, source + pos, sizeof word);
        const std::uint64_t special = special_bytes(word, level);
        const bool after_space = in_space && source[pos] == ' ';
        word = level == MatchLevel::casefold ? lower_ascii(word) : word;
        std::memcpy(out + used, &word, sizeof word);
        // The common case moves by a constant, so the processor can run ahead to the next word.
        if (special == 0 && !after_space) {
          used += sizeof word;
          pos += sizeof word;
          in_space = source[pos - 1] == ' ';
          continue;
        }
        const std::size_t plain = after_space ? 0 : plain_prefix(special);
        if (plain > 0) {
          used += plain;
          pos += plain;
          in_space = source[pos - 1] == ' ';
          continue;
        }
      }
      // One code point the general way.
      const unsigned char byte = source[pos];
      if (byte < 0x80) {
        const bool space = ascii.space[byte];
        out[used] = ascii.to[byte];
        used += space && in_space ? 0 : 1;
        in_space = space;
        ++pos;
        continue;
      }
      // A copy of the state whose address is taken, so the one above can live in a register.
      bool state = in_space;
      const FoldStep step = fold_step(document, pos, level, state, out + used);
      in_space = state;
      pos += step.consumed;
      used += step.written;
    }
  } while (pos < document.size());
  m_size = used;
}

void VerbatimView::reserve(std::size_t used, std::size_t more) {
  if (m_capacity - used >= more) {
    return;
  }
  const std::size_t capacity = std::max(m_capacity + m_capacity / 2, used + more);
  auto text = std::make_unique_for_overwrite<char[]>(capacity);
  if (used > 0) {
    std::memcpy(text.get(), m_text.get(), used);
  }
  m_text = std::move(text);
  m_capacity = capacity;
}

std::size_t VerbatimView::seek(Cursor& cursor, std::size_t target) const {
  const auto after = std::upper_bound(
      m_checkpoints.begin(), m_checkpoints.end(), target,
      [](std::size_t value, const Checkpoint& checkpoint) { return value < checkpoint.folded; });
  const Checkpoint& from = *std::prev(after);
  if (cursor.source < from.source || cursor.folded > target) {
    cursor = {from.source, from.folded, from.in_space != 0};
  }
  std::array<char, k_max_fold_bytes> scratch{};
  while (cursor.source < m_document.size()) {
    bool in_space = cursor.in_space;
    const FoldStep step = fold_step(m_document, cursor.source, m_level, in_space, scratch.data());
    if (cursor.folded + step.written > target) {
      return step.consumed;
    }
    cursor.source += step.consumed;
    cursor.folded += step.written;
    cursor.in_space = in_space;
  }
  return 0; // not reached for a target inside text()
}

std::vector<Span> VerbatimView::source_spans(std::span<const std::size_t> starts,
                                             std::size_t length) const {
  std::vector<Span> spans(starts.size());
  // Two sweeps in document order, so many occurrences cost one pass, not one re-fold each.
  Cursor cursor;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    seek(cursor, starts[i]);
    spans[i].begin = cursor.source;
  }
  cursor = {};
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::size_t consumed = seek(cursor, starts[i] + length - 1);
    spans[i].end = cursor.source + consumed;
  }
  return spans;
}

std::size_t VerbatimView::memory_bytes() const {
  return m_capacity + m_checkpoints.capacity() * sizeof(Checkpoint);
}

} // namespace ralph::docqa
