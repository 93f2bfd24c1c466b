#include "ralph/app/batch/batch_results.h"

#include "ralph/core/json.h"
#include "ralph/core/saturating.h"

#include <nlohmann/json.hpp>

#include <limits>

namespace ralph::app {

std::optional<GoalResult> goal_result_of(const nlohmann::json& line) {
  const auto id = line.find("id");
  const auto status = line.find("status");
  if (id == line.end() || !id->is_string() || status == line.end() || !status->is_string()) {
    return std::nullopt;
  }
  const auto parsed = status_from_string(status->get<std::string>());
  if (!parsed) {
    return std::nullopt;
  }
  GoalResult result{.id = id->get<std::string>(),
                    .session_id = std::string(string_member(line, "session_id")),
                    .status = *parsed};
  result.verified = bool_member(line, "verified", false);
  result.attempts = int_member_or(line, "iterations", 0, 0, std::numeric_limits<int>::max());
  if (const nlohmann::json* usage = member(line, "usage"); usage != nullptr) {
    result.tokens = saturating_add(int_member(*usage, "input_tokens").value_or(0),
                                   int_member(*usage, "output_tokens").value_or(0));
  }
  if (const auto cost = line.find("cost_usd"); cost != line.end() && cost->is_number()) {
    result.cost_usd = cost->get<double>();
  }
  result.duration_ms = int_member(line, "duration_ms").value_or(0);
  return result;
}

} // namespace ralph::app
