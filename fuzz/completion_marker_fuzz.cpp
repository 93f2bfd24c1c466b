// The completion marker (first line) in an answer (the rest): the scan never throws, what the
// user sees is never longer than the answer, and a claim needs the marker on the last line.
#include "fuzz_support.h"

#include "ralph/core/text.h"
#include "ralph/verify/completion_marker.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ralph;
  const auto [marker, answer] = fuzz::split_once(fuzz::as_text(data, size), '\n');
  const auto scan = verify::scan_completion_marker(answer, marker);
  fuzz::check(scan.visible.size() <= answer.size(), "the visible answer grew");
  if (scan.claimed) {
    fuzz::check(!trim(marker).empty(), "an empty marker claimed");
    const std::string lowered = to_lower_ascii(answer);
    std::string compact_marker;
    for (const char c : to_lower_ascii(marker)) {
      if (c != ' ' && c != '\t') {
        compact_marker += c;
      }
    }
    std::string compact_answer;
    for (const char c : lowered) {
      if (c != ' ' && c != '\t') {
        compact_answer += c;
      }
    }
    fuzz::check(compact_answer.find(compact_marker) != std::string::npos,
                "a claim without the marker in the answer");
  }
  return 0;
}
