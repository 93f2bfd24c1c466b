#pragma once

#include "ralph/store/session_store.h"

#include <string>
#include <vector>

namespace ralph::store {

// One attempt's trace document (`iter-XX.json`), from the recorded rows: session_id, goal,
// created_at, iteration, started_at, finished_at, answer, stop, steps, verified, skip_reason,
// passed, feedback, usage, tool_calls [{name, arguments, result, exit_code, is_error,
// changed_workspace, duration_ms}], verdicts [{verifier, result, category, feedback, reasoning,
// policy, evidence}]. Rows of other attempts in `tools` and `verdicts` are ignored.
std::string attempt_trace_json(const SessionRow& session, const AttemptRow& attempt,
                               const std::vector<ToolCallRow>& tools,
                               const std::vector<VerdictRow>& verdicts);

} // namespace ralph::store
