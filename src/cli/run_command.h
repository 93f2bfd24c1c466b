#pragma once

#include "cli/command_line.h"
#include "cli/model_providers.h"
#include "cli/run_context.h"
#include "cli/run_loop.h"

#include "ralph/verify/judge_context.h"

#include <string>
#include <vector>

namespace ralph::cli {

// The built-in agent's system prompt: the configured or built-in one, the user's rules files
// (`rules`), and in verifier-first runs how to claim completion.
std::string agent_system_prompt(const Config& config,
                                const std::vector<verify::JudgeRulesFile>& rules);

// `ralph run`: the built-in agent works on the goal under the outer loop.
Result<int> run_command(const RunArgs& args);

// The agent the configuration names (an external CLI, or the built-in agent on its model) works
// on the context's goal or its resumed session. Returns the exit code.
Result<int> run_agent(RunContext& context, const std::string& banner);

// The built-in ReAct agent with the built-in tools, on `model`, works on the context's goal (or
// its resumed session) with the verifiers its configuration asks for. Returns the exit code.
Result<int> run_goal(RunContext& context, const std::string& banner, const Model& model);

// What run_agent runs, for a caller that runs it itself (run_session).
Result<std::unique_ptr<PreparedRun>> prepare_agent(RunContext& context);
// What run_goal runs.
Result<std::unique_ptr<PreparedRun>> prepare_goal(RunContext& context, const Model& model);

} // namespace ralph::cli
