#pragma once

#include "ralph/agent/command_agent.h"
#include "ralph/agent/react_agent.h"
#include "ralph/core/cancel.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/session/mcp_servers.h"
#include "ralph/session/models.h"
#include "ralph/tools/process_runner.h"
#include "ralph/tools/registry.h"
#include "ralph/verify/judge_context.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ralph::session {

// Whether the configuration runs an external agent CLI (`agent.cli`, `agent.command`) instead of
// the built-in agent.
bool uses_external_agent(const Config& config);

// A configuration error when evidence is required (verifier-first: a chat's /goal too) and the
// external agent CLI reports no exit codes of the commands it runs: no check it ran could be
// evidence, so such a run could never pass.
Result<void> check_evidence_agent(const Config& config);

// What works on the goal, for banners: "claude (sonnet)", "command `…`", or the model.
std::string agent_label(const Config& config);

// The built-in agent's system prompt: the configured or built-in one, the user's rules files
// (`rules`, as the judge sees them), and in verifier-first runs how to claim completion.
std::string agent_system_prompt(const Config& config,
                                const std::vector<verify::JudgeRulesFile>& rules);

// The external agent the configuration names, run in `workspace` for ralph session
// `session_id`; an unknown agent name is a configuration error naming the known ones. `runner`
// must outlive it.
Result<std::unique_ptr<agent::CommandAgent>>
make_external_agent(const Config& config, const std::filesystem::path& workspace,
                    tools::ProcessRunner& runner, const std::string& session_id);

// The built-in ReAct agent on `model` with the built-in tools (the registry it owns beside it).
struct BuiltinAgent {
  McpConnections mcp; // the MCP servers whose tools it has
  std::unique_ptr<tools::Registry> tools;
  std::unique_ptr<agent::ReactAgent> agent;
};

// The built-in agent working in `workspace`; its tools stop with `cancel`. `rules` go into its
// system prompt; the tools of the `mcp` servers join the built-in ones. `model`'s provider and
// `runner` must outlive it.
BuiltinAgent make_builtin_agent(const Config& config, const Model& model,
                                tools::ProcessRunner& runner,
                                const std::filesystem::path& workspace, const CancelToken& cancel,
                                const std::vector<verify::JudgeRulesFile>& rules,
                                McpConnections mcp = {});

} // namespace ralph::session
