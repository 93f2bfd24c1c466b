#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph worker --queue URL`: claims goals of queued batches, up to --concurrency at a time,
// under leases it renews every third of --lease; runs each as a session on the engine (resumed
// from its record when another worker started it), makes its workspace from its `repo` and
// `ref`, and records its result in the queue only while it still holds the goal. Returns the
// exit code (docs/manual/batch.md).
Result<int> worker_command(const RunArgs& args, const WorkerArgs& worker);

} // namespace ralph::cli
