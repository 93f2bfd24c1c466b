// Output excerpts: within the budget (first two bytes), valid UTF-8, the same every time, and
// the whole output when it is clean text that fits.
#include "fuzz_support.h"

#include "ralph/core/text.h"
#include "ralph/verify/output_excerpt.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ralph;
  if (size < 2) {
    return 0;
  }
  const std::size_t budget = (std::size_t{data[0]} << 8U | data[1]) % 4096;
  const std::string_view output = fuzz::as_text(data + 2, size - 2);
  const std::string excerpt = verify::excerpt_failures(output, budget);
  fuzz::check(excerpt.size() <= budget, "an excerpt over its budget");
  fuzz::check(is_valid_utf8(excerpt), "an excerpt that is not valid UTF-8");
  fuzz::check(verify::excerpt_failures(output, budget) == excerpt, "an excerpt that varies");
  if (output.size() <= budget && is_valid_utf8(output) &&
      output.find('\x1b') == std::string_view::npos &&
      output.find('\r') == std::string_view::npos) {
    fuzz::check(excerpt == output, "clean output that fits was not kept whole");
  }
  return 0;
}
