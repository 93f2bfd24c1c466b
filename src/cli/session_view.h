#pragma once

#include "ralph/store/session_store.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ralph::cli {

// Whether the process a session's row names as its owner is still running it
// (store::session_owned; a fake in tests).
using OwnerCheck = std::function<bool(const store::SessionRow& row)>;

// The status a person is shown: the recorded one, or "stopped" for a session recorded `active`
// whose process is gone (killed, or ended by SIGPIPE) and so will never finish it; `sessions
// resume` continues such a session.
std::string shown_status(const store::SessionRow& row, const OwnerCheck& running);

// Which sessions `ralph sessions list` shows: those of one of `kinds` (none: every kind) whose
// status is one of `statuses`, or `stopped` as shown_status says, or completed and `verified`
// (none of the three: every status); the newest `limit` of them (0: all).
struct SessionFilter {
  std::vector<store::SessionKind> kinds;
  std::vector<Status> statuses;
  bool stopped = false;
  bool verified = false;
  int limit = 0;
};

// The values `--status` takes, in order: the recorded statuses, "stopped", "verified"; and those
// `--kind` takes.
std::vector<std::string> status_filter_names();
std::vector<std::string> kind_filter_names();

// `sessions` (newest first) as `filter` selects them.
std::vector<store::SessionRow> select_sessions(std::vector<store::SessionRow> sessions,
                                               const SessionFilter& filter,
                                               const OwnerCheck& running);

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
