#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph batch FILE --queue URL`: checks every line as the local batch does, then adds the goals
// missing from the queued batch (idempotent by goal id), with the batch's configuration (files
// and flags, resolved here) as its settings. Returns the exit code: 0 queued (or queued
// already), 1 some id is queued with another line (left as it was), 2 bad lines (nothing
// queued).
Result<int> enqueue_command(const RunArgs& args, const BatchArgs& batch);

} // namespace ralph::cli
