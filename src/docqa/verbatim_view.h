#pragma once

// A document folded at one match level, with a sparse map back to the document's offsets.
// Private to src/docqa (VerbatimIndex keeps one per loosest level it was asked for).

#include "ralph/docqa/verbatim.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace ralph::docqa {

// Source bytes between two checkpoints of a view (the last code point of a stretch may run up
// to 3 bytes past it). Mapping a folded offset back re-folds at most about this much.
inline constexpr std::size_t k_checkpoint_interval = 256;

// The fold of a whole document at one level (whitespace or looser), built in one pass. Instead
// of an offset per folded byte it keeps a checkpoint (source offset, folded offset, whitespace
// state) every k_checkpoint_interval source bytes and maps a folded offset back by re-folding
// from the checkpoint before it. `document` must outlive the view. Immutable once built.
class VerbatimView {
public:
  VerbatimView(std::string_view document, MatchLevel level);

  std::string_view text() const { return {m_text.get(), m_size}; }
  MatchLevel level() const { return m_level; }

  // For each start (ascending, each start + length <= text().size(), length > 0), the document
  // span that folds to text()[start, start + length): from the code point that produced the
  // first folded byte to the end of the one that produced the last, so it covers whole code
  // points and every whitespace run or ignorable code point inside. A match that starts or ends
  // inside the fold of one code point ("…" as "...", "ﬁ" as "fi") takes all of it.
  std::vector<Span> source_spans(std::span<const std::size_t> starts, std::size_t length) const;

  // Bytes this view holds: the folded text (as allocated) and the checkpoints.
  std::size_t memory_bytes() const;

private:
  struct Checkpoint {
    std::uint64_t source = 0;
    std::uint64_t folded : 63 = 0;
    std::uint64_t in_space : 1 = 0;
  };
  // A position in the fold: the next source byte, the folded bytes before it, the state there.
  struct Cursor {
    std::size_t source = 0;
    std::size_t folded = 0;
    bool in_space = false;
  };

  void reserve(std::size_t used, std::size_t more);
  // Moves `cursor` to the code point that produced folded byte `target` and returns that code
  // point's source length. Restarts from a checkpoint unless `cursor` is already on the way.
  std::size_t seek(Cursor& cursor, std::size_t target) const;

  std::string_view m_document;
  MatchLevel m_level;
  std::unique_ptr<char[]> m_text;
  std::size_t m_size = 0;
  std::size_t m_capacity = 0;
  std::vector<Checkpoint> m_checkpoints;
};

} // namespace ralph::docqa
