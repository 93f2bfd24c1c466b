#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph heartbeat`: runs the agent on the tasks of the workspace's HEARTBEAT.md, once or every
// `heartbeat.every`, each tick a run recorded as a heartbeat session and verified by the judge
// with HEARTBEAT.md in view (unless loop.verify_heartbeat is false). Ticks never overlap, across
// processes: one that finds another running skips (or waits, --wait) and says so. Returns the
// exit code documented in its --help; an error is a usage or configuration mistake (or a tick
// that could not start).
Result<int> heartbeat_command(const RunArgs& args, const HeartbeatArgs& heartbeat);

} // namespace ralph::cli
