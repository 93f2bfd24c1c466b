// The verbatim index: a quote (first line) in a document (the rest). The levels nest (what a
// stricter level finds, every looser one finds, at the same strictest level), occurrences lie in
// the document on character boundaries, and evidence windows stay inside it.
#include "docqa/text_folding.h"
#include "fuzz_support.h"

#include "ralph/docqa/verbatim.h"

#include <optional>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ralph;
  using docqa::MatchLevel;
  const auto [quote, document] = fuzz::split_once(fuzz::as_text(data, size), '\n');
  docqa::VerbatimIndex index(document);
  std::optional<MatchLevel> found;
  for (int loosest = 0; loosest < 4; ++loosest) {
    const docqa::QuoteMatch match = index.find(quote, static_cast<MatchLevel>(loosest));
    if (found) {
      fuzz::check(match.level == found, "a looser level lost a match");
    }
    found = match.level;
    fuzz::check(match.level.has_value() == !match.occurrences.empty(), "level and occurrences");
    for (const docqa::Span& span : match.occurrences) {
      fuzz::check(span.begin < span.end && span.end <= document.size(), "a span off the document");
      fuzz::check(docqa::code_point_start(document, span.begin) == span.begin &&
                      docqa::code_point_end(document, span.end) == span.end,
                  "a span inside a character");
    }
    const auto windows = docqa::evidence_windows(match.occurrences, 16, document);
    for (std::size_t i = 0; i < windows.size(); ++i) {
      fuzz::check(windows[i].begin <= windows[i].end && windows[i].end <= document.size(),
                  "a window off the document");
      fuzz::check(i == 0 || windows[i - 1].end < windows[i].begin, "windows overlap");
    }
  }
  return 0;
}
