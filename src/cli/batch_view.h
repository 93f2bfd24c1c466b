#pragma once

#include "ralph/app/batch/batch_results.h"

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace ralph::cli {

// Two lines: the counts, tokens, cost and ETA; the slowest running goals.
std::vector<std::string> live_lines(const app::BatchProgress& progress, std::size_t width);

// The summary table for a person.
std::string summary_table(const app::BatchProgress& progress, const app::BatchEnd& end);
// The same as one JSON object (`--json`).
std::string summary_json(const app::BatchProgress& progress, const app::BatchEnd& end);

// The cost of goals: "$1.23"; "≥$1.23" when only some of their models have a price; "unknown"
// when none has one. Never "$0.00" for a cost nobody could price.
std::string cost_words(double cost_usd, bool cost_known);

// "1m05s", "12.3 s" style durations for progress lines.
std::string short_duration(std::chrono::milliseconds duration);

} // namespace ralph::cli
