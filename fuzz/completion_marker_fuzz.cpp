// The completion marker (first line) in an answer (the rest): the scan never throws, what the
// user sees is never longer than the answer, and a claim needs the marker on the last line.
#include "fuzz_support.h"

#include "ralph/core/text.h"
#include "ralph/verify/completion_marker.h"

#include <cctype>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ralph;
  const auto [marker, answer] = fuzz::split_once(fuzz::as_text(data, size), '\n');
  const auto scan = verify::scan_completion_marker(answer, marker);
  fuzz::check(scan.visible.size() <= answer.size(), "the visible answer grew");
  if (scan.claimed) {
    // Case and whitespace do not matter to the marker.
    const auto compact = [](std::string_view text) {
      std::string out;
      for (const char c : to_lower_ascii(text)) {
        if (std::isspace(static_cast<unsigned char>(c)) == 0) {
          out += c;
        }
      }
      return out;
    };
    fuzz::check(!compact(marker).empty(), "an empty marker claimed");
    fuzz::check(compact(answer).find(compact(marker)) != std::string::npos,
                "a claim without the marker in the answer");
  }
  return 0;
}
