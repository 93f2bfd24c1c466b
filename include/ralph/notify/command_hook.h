#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/core/settings.h"
#include "ralph/notify/notification.h"
#include "ralph/tools/process_runner.h"

namespace ralph::notify {

// Runs the target's command (no shell) with the event JSON on stdin, for at most the entry's
// timeout. An exit code 0 is
// delivered; otherwise an error saying how it ended and the last line it printed. Tried once: a
// program retries itself if it wants to.
Result<void> run_command_hook(tools::ProcessRunner& runner, const NotifyTarget& target,
                              const Notification& notification, const CancelToken& cancel);

} // namespace ralph::notify
