#pragma once

#include <string_view>

namespace ralph::verify {

// The judge's system prompt: its role, the three-dimension rubric (goal achievement,
// completeness, rule compliance), the failure categories with their meanings, and the exact
// output format: the JSON object of judge_verdict_schema() when `structured`, otherwise brief
// reasoning ending in one final line `PASS` or `FAIL [category]: feedback`. Static text.
std::string_view judge_system_prompt(bool structured);

// JSON Schema (in OpenAI's strict subset) of the structured verdict:
// {"reasoning", "verdict": "PASS"|"FAIL", "category", "feedback"}, reasoning first so the model
// reasons before it decides. Static text.
std::string_view judge_verdict_schema();

} // namespace ralph::verify
