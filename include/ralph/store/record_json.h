#pragma once

#include "ralph/store/session_store.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace ralph::store {

// The JSON form of each recorded row, the one used by trace files and `sessions show --json`.
// Arguments, evidence and messages recorded as JSON text come out as JSON values (as text when
// they do not parse).

// `text` as the JSON value it holds, or as a JSON string when it does not parse.
nlohmann::json json_or_text(const std::string& text);

// {id, name, arguments, result, exit_code (null when none), is_error, changed_workspace,
// duration_ms, at}
nlohmann::json tool_call_json(const ToolCallRow& tool);

// {verifier, kind, result, category, feedback, reasoning, policy (null unless an error's), model,
// usage {input_tokens, output_tokens}, duration_ms, evidence (null when none), output, at}
nlohmann::json verdict_json(const VerdictRow& verdict);

// {iteration, finished, started_at, finished_at, answer, stop, steps, tool_call_count, usage,
// duration_ms, verified, skip_reason, passed, feedback}: the attempt's own fields, without its
// messages, tool calls and verdicts.
nlohmann::json attempt_json(const AttemptRow& attempt);

// {iteration, step, model, usage, stop_reason, at}
nlohmann::json model_call_json(const ModelCallRow& call);

// One attempt's trace document (`iter-XX.json`): session_id, goal, created_at, iteration,
// started_at, finished_at, answer, stop, steps, verified, skip_reason, passed, feedback, usage,
// tool_calls and verdicts of this attempt (as above). Rows of other attempts are ignored.
std::string attempt_trace_json(const SessionRow& session, const AttemptRow& attempt,
                               const std::vector<ToolCallRow>& tools,
                               const std::vector<VerdictRow>& verdicts);

} // namespace ralph::store
