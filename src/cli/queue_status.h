#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"
#include "ralph/store/goal_queue.h"

#include <string>
#include <vector>

namespace ralph::cli {

// `ralph batch status --queue URL [--name NAME] [--json]`: a queued batch's goals counted (every
// batch of the queue without --name). Exit code 0; 2 when there is no such batch.
Result<int> queue_status_command(const RunArgs& args, const BatchArgs& batch);

// `ralph batch export --queue URL --name NAME [-o FILE]`: one line per finished goal, in enqueue
// order, as the local batch's results.jsonl has them. Exit code 0; 2 when there is no such batch.
Result<int> queue_export_command(const BatchArgs& batch);

// The counts for a person, as the local batch's summary shows them.
std::string queue_status_table(const store::QueueStatus& status);
// The same as one JSON object.
std::string queue_status_json(const store::QueueStatus& status);
// The workers holding goals, each with its goals, the stale ones and its heartbeat's age; empty
// when there are none.
std::string queue_workers_table(const std::vector<store::WorkerStatus>& workers);

} // namespace ralph::cli
