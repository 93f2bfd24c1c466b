#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph batch FILE`: every goal of FILE as its own session in its own worktree (or copy),
// `--concurrency` at a time in this process, recorded so that running the same command again
// skips finished goals and resumes the others. Returns the exit code (docs/manual/batch.md).
Result<int> batch_command(const RunArgs& args, const BatchArgs& batch);

} // namespace ralph::cli
