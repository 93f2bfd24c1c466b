#include "cli/run_command.h"

#include "cli/best_of_command.h"
#include "cli/external_agent.h"
#include "cli/run_loop.h"

#include "ralph/agent/react_agent.h"
#include "ralph/core/try.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/verify/completion_marker.h"

#include <fmt/format.h>

namespace ralph::cli {
namespace {

// The user's rules files for the agent, as the judge sees them (each capped at
// judge.rules_chars): without them the agent would be judged by rules it never read.
std::string instructions_section(const std::vector<verify::JudgeRulesFile>& rules) {
  std::string out;
  for (const verify::JudgeRulesFile& file : rules) {
    if (!file.error.empty() || file.content.empty()) {
      continue;
    }
    out += fmt::format("\n\n## {}\n{}", file.name, file.content);
    if (file.size > file.content.size()) {
      out += fmt::format("\n[... {} of {} bytes shown]", file.content.size(), file.size);
    }
  }
  if (out.empty()) {
    return out;
  }
  return "\n\n# Instructions from the workspace\nThe user's files below are part of your "
         "instructions; your work is judged by them." +
         out;
}

} // namespace

std::string agent_system_prompt(const Config& config,
                                const std::vector<verify::JudgeRulesFile>& rules) {
  std::string prompt = config.agent.system_prompt.empty() ? agent::default_system_prompt()
                                                          : config.agent.system_prompt;
  prompt += instructions_section(rules);
  if (config.evidence.enabled) {
    prompt += verify::completion_instructions(config.evidence.marker);
    if (!config.evidence.instructions.empty()) {
      prompt += "\n\nHow to verify this goal: " + config.evidence.instructions;
    }
  }
  return prompt;
}

Result<std::unique_ptr<PreparedRun>> prepare_goal(RunContext& context, const Model& model) {
  const Config& config = context.config();
  TRY(check_prices(config));
  TRY_ASSIGN(VerifierSetup verifiers,
             build_verifiers(config, context.workspace(), context.runner(), context.models(),
                             context.session().baseline, true));
  auto prepared = std::make_unique<PreparedRun>();
  prepared->tools = std::make_unique<tools::Registry>(
      tools::make_builtin_registry(config.tools, context.runner()));
  AgentSettings settings = config.agent;
  settings.system_prompt = agent_system_prompt(config, verifiers.rules);
  prepared->agent = std::make_unique<agent::ReactAgent>(
      *model.provider, *prepared->tools,
      tools::ToolContext{.workspace = context.workspace(), .cancel = context.cancel()}, model.spec,
      std::move(settings));
  prepared->run.emplace(LoopRun{.agent = *prepared->agent, .verifiers = std::move(verifiers)});
  return prepared;
}

Result<std::unique_ptr<PreparedRun>> prepare_agent(RunContext& context) {
  if (uses_external_agent(context.config())) {
    return prepare_external_agent(context);
  }
  TRY_ASSIGN(const Model model, context.models().make(context.config().model));
  return prepare_goal(context, model);
}

Result<int> run_goal(RunContext& context, const std::string& banner, const Model& model) {
  TRY_ASSIGN(const auto prepared, prepare_goal(context, model));
  return run_loop(context, banner, *prepared->run);
}

Result<int> run_agent(RunContext& context, const std::string& banner) {
  TRY_ASSIGN(const auto prepared, prepare_agent(context));
  return run_loop(context, banner, *prepared->run);
}

Result<int> run_command(const RunArgs& args) {
  if (args.parallel_attempts > 1) {
    return best_of_command(args);
  }
  TRY_ASSIGN(auto context, RunContext::open(args));
  const std::string banner =
      fmt::format("ralph {} · {} · workspace {}", RALPH_VERSION, agent_label(context->config()),
                  context->workspace().string());
  return run_agent(*context, banner);
}

} // namespace ralph::cli
