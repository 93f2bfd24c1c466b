#pragma once

#include "ralph/store/session_store.h"

#include <chrono>
#include <string>
#include <vector>

namespace ralph::cli {

// `ralph sessions list`: one line per session (id, status, attempts, tokens, cost, age, goal).
std::string render_session_list(const std::vector<store::SessionRow>& sessions,
                                std::chrono::system_clock::time_point now);

// `ralph sessions show ID`: the session, then every attempt with its tool calls, answer,
// verdicts and the feedback sent back.
std::string render_session(const store::SessionRecord& record);

// The same as JSON (`--json`).
std::string session_list_json(const std::vector<store::SessionRow>& sessions);
std::string session_record_json(const store::SessionRecord& record);

} // namespace ralph::cli
