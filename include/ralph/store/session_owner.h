#pragma once

#include "ralph/store/session_store.h"

#include <cstdint>
#include <functional>
#include <string>

namespace ralph::store {

// Whether process `pid` on `host` may still be running a session: the one answer `sessions
// list`, `resume`, `rm`, `prune` and `chat --resume` all use. A process of another machine cannot
// be checked and counts as alive. Here it must exist (EPERM: another user's; only ESRCH proves it
// gone) and still be a ralph (its command line names ralph, or cannot be read), since a killed
// owner's pid may have been reused by another program. Never this process: it is not running a
// session it asks about. False for 0 and negative pids.
bool owner_alive(std::int64_t pid, const std::string& host);

// Whether `row` names a process of another machine as its owner.
bool owned_on_another_host(const SessionRow& row);

// owner_alive for the row's owner: a process runs the session now.
bool session_owned(const SessionRow& row);

// Whether the process a row names as its owner still runs the session: session_owned, or a fake
// in tests.
using OwnerCheck = std::function<bool(const SessionRow& row)>;

// Whether `row` is recorded `active` but no process runs it (killed, or ended by SIGPIPE), so it
// will never finish unless `ralph sessions resume` continues it. A Stop-hook session is the agent
// CLI's, which no ralph process owns between its stops: it never counts as stopped.
bool session_stopped(const SessionRow& row, const OwnerCheck& owned);

// "process 123" or "process 123 on host build-7", for messages.
std::string owner_text(const SessionRow& row);

} // namespace ralph::store
