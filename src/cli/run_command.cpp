#include "cli/run_command.h"

#include "cli/run_loop.h"

#include "ralph/agent/react_agent.h"
#include "ralph/core/try.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/verify/completion_marker.h"

#include <fmt/format.h>

namespace ralph::cli {
namespace {

// The agent's system prompt: the configured or built-in one, and in verifier-first runs how to
// claim completion.
std::string system_prompt(const Config& config) {
  std::string prompt = config.agent.system_prompt.empty() ? agent::default_system_prompt()
                                                          : config.agent.system_prompt;
  if (config.evidence.enabled) {
    prompt += verify::completion_instructions(config.evidence.marker);
    if (!config.evidence.instructions.empty()) {
      prompt += "\n\nHow to verify this goal: " + config.evidence.instructions;
    }
  }
  return prompt;
}

} // namespace

Result<int> run_goal(RunContext& context, const std::string& banner, const Model& model) {
  const Config& config = context.config();
  TRY(check_prices(config));
  TRY_ASSIGN(VerifierSetup verifiers,
             build_verifiers(config, context.workspace(), context.runner(), context.models(),
                             context.session().baseline, true));
  const tools::Registry registry = tools::make_builtin_registry(config.tools, context.runner());
  AgentSettings settings = config.agent;
  settings.system_prompt = system_prompt(config);
  agent::ReactAgent agent(
      *model.provider, registry,
      tools::ToolContext{.workspace = context.workspace(), .cancel = context.cancel()}, model.spec,
      std::move(settings));
  LoopRun run{.agent = agent, .verifiers = std::move(verifiers)};
  return run_loop(context, banner, run);
}

Result<int> run_command(const RunArgs& args) {
  TRY_ASSIGN(auto context, RunContext::open(args));
  TRY_ASSIGN(const Model model, context->models().make(context->config().model));
  const std::string banner = fmt::format("ralph {} · {} · workspace {}", RALPH_VERSION,
                                         context->config().model, context->workspace().string());
  return run_goal(*context, banner, model);
}

} // namespace ralph::cli
