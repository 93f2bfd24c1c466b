#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace ralph {

Result<nlohmann::json> parse_json(std::string_view text, std::string_view what) {
  // The callback-free, non-throwing overload marks failure with a `discarded` value; a second
  // pass through the SAX error position would cost a full re-parse, so the position comes from a
  // throwing parse only on the rare failure path.
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  if (!value.is_discarded()) {
    return value;
  }
  std::size_t position = 0;
  try {
    const auto ignored = nlohmann::json::parse(text);
    (void)ignored;
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann counts one past the end when the input stops early.
    position = std::min<std::size_t>(e.byte, text.size());
  }
  return fail(ErrorKind::parse,
              fmt::format("{}: malformed JSON near byte {} of {}", what, position, text.size()));
}

} // namespace ralph
