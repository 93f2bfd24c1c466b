#pragma once

#include "cli/run_context.h"
#include "cli/run_loop.h"

#include "ralph/agent/command_agent.h"
#include "ralph/core/config.h"

#include <memory>
#include <string>

namespace ralph::cli {

// Whether the configuration runs an external agent CLI (`--agent`, `--agent-cmd`) instead of the
// built-in agent.
bool uses_external_agent(const Config& config);

// What works on the goal, for banners: "claude (sonnet)", "command `…`", or the model.
std::string agent_label(const Config& config);

// The external agent the configuration names, run in `workspace` for ralph session
// `ralph_session`; an unknown agent name is a configuration error naming the known ones.
Result<std::unique_ptr<agent::CommandAgent>>
make_external_agent(const Config& config, const std::filesystem::path& workspace,
                    tools::ProcessRunner& runner, std::string ralph_session);

// An external agent CLI ready to work on the context's goal (or its resumed session) under the
// outer loop, with the verifiers its configuration asks for; an unknown agent name is a
// configuration error naming the known ones.
Result<std::unique_ptr<PreparedRun>> prepare_external_agent(RunContext& context);

} // namespace ralph::cli
