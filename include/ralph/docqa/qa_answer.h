#pragma once

#include "ralph/core/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace ralph::docqa {

// A grounded answer: short claims, and quotes from the document that support them.
struct QaAnswer {
  std::vector<std::string> bullets;
  std::vector<std::string> quotes;
};

// Parses the generator's answer: the JSON object {"answer": [strings], "evidence": [strings]},
// bare, in a ``` / ```json fence, or as the last such object in the text. An ErrorKind::parse
// error says what is missing or of the wrong type.
Result<QaAnswer> parse_qa_answer(std::string_view text);

// The answer as JSON text, in the form parse_qa_answer reads.
std::string qa_answer_json(const QaAnswer& answer);

} // namespace ralph::docqa
