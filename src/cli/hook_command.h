#pragma once

#include "cli/command_line.h"

#include "ralph/core/error.h"

namespace ralph::cli {

// `ralph hook`: reads an agent CLI's Stop (Gemini: AfterAgent) payload on stdin, verifies the
// answer in the payload's cwd with the workspace's verifiers, records the call as an attempt of
// the agent session's ralph session, and prints the CLI's decision (hook_protocol.h). Returns
// 0 when it decided (block or let through); 1 when it could not verify (said on stderr): every
// CLI takes 1 as a non-blocking error, so a broken hook never traps the agent. Never 2, which
// Claude and Gemini read as "block".
int hook_command(const RunArgs& args, const HookArgs& hook);

// `ralph hook install|uninstall AGENT [--project|--user]`: 0, or an error (config: a settings
// file that is not valid JSON, left untouched).
Result<int> hook_install_command(const RunArgs& args, const HookArgs& hook, bool install);

} // namespace ralph::cli
