#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/session/session.h"
#include "ralph/store/session_store.h"

#include <string>
#include <vector>

namespace ralph::session {

// A session by its id, or by a prefix that names only one: a usage error otherwise ("no session
// X in this workspace", "X matches 3 sessions; give more of the id").
Result<store::SessionRow> find_session(store::SessionStore& store, const std::string& id);
// Its whole record.
Result<store::SessionRecord> load_session(store::SessionStore& store, const std::string& id);

// A recorded session made ready to go on where it stopped (`ralph sessions resume`).
struct ResumePlan {
  SessionRequest request; // its goal and workspace, its recorded configuration, its record
  int next_iteration = 1; // the attempt it goes on with
  int attempts_finished = 0;
};

// The record with its recorded configuration and `overrides` over it (files and variables changed
// since do not change a session's rules halfway). A usage error, saying what to do, when it
// cannot go on: a live process runs it, it is a chat or a best-of-N run or a Stop-hook session,
// it is completed, a budget ended it and `overrides` raise none, its attempts are used up, or its
// workspace is gone.
Result<ResumePlan> plan_resume(store::SessionRecord record, const std::vector<Setting>& overrides);

} // namespace ralph::session
