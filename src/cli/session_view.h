#pragma once

#include "ralph/store/session_owner.h"
#include "ralph/store/session_store.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ralph::cli {

using store::OwnerCheck;

// The status a person is shown: the recorded one, or "stopped" for a session recorded `active`
// whose process is gone (store::session_stopped); `sessions resume` continues such a session.
std::string shown_status(const store::SessionRow& row, const OwnerCheck& running);

// The values `--status` takes, in order: the recorded statuses, "stopped", "verified"; and those
// `--kind` takes.
std::vector<std::string> status_filter_names();
std::vector<std::string> kind_filter_names();

// `ralph sessions list`: one line per session (id, status, attempts, tokens, cost, age, goal).
std::string render_session_list(const std::vector<store::SessionRow>& sessions,
                                std::chrono::system_clock::time_point now,
                                const OwnerCheck& running);

// `ralph sessions show ID`: the session, then every attempt with its tool calls, answer,
// verdicts and the feedback sent back. A chat's attempts are its turns, and `goals` (the
// sessions whose parent it is) follow them; a best-of-N session's `goals` are its candidates.
std::string render_session(const store::SessionRecord& record, const OwnerCheck& running,
                           const std::vector<store::SessionRow>& goals = {});

// The same as JSON (`--json`).
std::string session_list_json(const std::vector<store::SessionRow>& sessions,
                              const OwnerCheck& running);
std::string session_record_json(const store::SessionRecord& record, const OwnerCheck& running,
                                const std::vector<store::SessionRow>& goals = {});

} // namespace ralph::cli
