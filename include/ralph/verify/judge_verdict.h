#pragma once

#include "ralph/verify/verdict.h"

#include <string>
#include <string_view>

namespace ralph::verify {

// What the judge's output says. For `error` (category "malformed") `feedback` says what was wrong
// with the output; the output never silently passes.
struct JudgeReply {
  Outcome result = Outcome::error;
  Category category;     // none on pass
  std::string feedback;  // for the agent on fail; what went wrong on error
  std::string reasoning; // everything the judge wrote before its verdict
};

// Parses the judge's output, in either form:
//  - structured: one JSON object {"verdict": "PASS"|"FAIL", "category", "feedback",
//    "reasoning"}, alone or in one ``` / ```json fence at the end of the output;
//  - text: reasoning, then a FINAL non-empty line `PASS` or `FAIL [category]: feedback`.
// The verdict keyword is case-insensitive; the line may be wrapped in whitespace, `**` or
// backticks, end in a period, and start with a "Verdict:" label. A category is [a-z_]+ (unknown
// ones are kept); a FAIL needs one, a PASS must not have one (contradictory). A last line that
// is no verdict (e.g. "PASS" inside a sentence), an empty output, or an earlier standalone
// verdict line disagreeing with the last one is an error. A FAIL without feedback gets the
// category's description as feedback.
JudgeReply parse_judge_reply(std::string_view output);

// The judge's failure categories: goal_missed, incomplete, rule_violation, tone_mismatch,
// refusal, blocked.
bool is_judge_category(std::string_view category);

// One line describing a judge category ("" for unknown ones).
std::string_view judge_category_description(std::string_view category);

} // namespace ralph::verify
