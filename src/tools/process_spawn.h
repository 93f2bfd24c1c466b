#pragma once

#include "unique_fd.h"

#include "ralph/core/error.h"
#include "ralph/tools/process_runner.h"

#include <sys/types.h>

namespace ralph::tools {

// A freshly started child and the parent's ends of its pipes (all O_CLOEXEC and non-blocking).
struct SpawnedProcess {
  pid_t pid = -1; // also the id of its process group and session
  UniqueFd out;   // its stdout (and stderr when merged)
  UniqueFd err;   // its stderr when not merged
  UniqueFd in;    // its stdin when the spec has stdin data
};

// Starts `spec.argv` in a new session with default signal dispositions and an empty signal
// mask. A Result error (kind `subprocess`) names the command and why it could not start.
// The caller owns the child from then on and must reap it.
Result<SpawnedProcess> spawn_process(const ProcessSpec& spec);

} // namespace ralph::tools
