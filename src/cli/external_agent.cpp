#include "cli/external_agent.h"

#include "cli/run_loop.h"

#include "ralph/agent/command_agent.h"
#include "ralph/core/ids.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/verify/completion_marker.h"

#include <fmt/format.h>

namespace ralph::cli {
namespace {

// How the agent is to claim completion in verifier-first runs: the CLI reads no system prompt of
// ours, so its first prompt says it.
std::string instructions(const Config& config) {
  if (!config.evidence.enabled) {
    return {};
  }
  std::string out = std::string(trim(verify::completion_instructions(config.evidence.marker)));
  if (!config.evidence.instructions.empty()) {
    out += "\n\nHow to verify this goal: " + config.evidence.instructions;
  }
  return out;
}

Result<agent::CommandAgentOptions> agent_options(const Config& config,
                                                 const std::filesystem::path& workspace,
                                                 std::string ralph_session) {
  agent::CommandAgentOptions options;
  if (!config.agent.command.empty()) {
    options.name = "command";
    options.preset.command = {"/bin/sh", "-c", config.agent.command};
    options.preset.format = CliFormat::text;
    options.shell_line = true;
  } else {
    const auto preset = config.agents.find(config.agent.cli);
    if (preset == config.agents.end()) {
      std::vector<std::string> known;
      for (const auto& [name, _] : config.agents) {
        known.push_back(name);
      }
      return fail(ErrorKind::config,
                  fmt::format("agent.cli: unknown agent '{}' (known: {}; add [agents.{}] to the "
                              "configuration for another)",
                              config.agent.cli, fmt::join(known, ", "), config.agent.cli));
    }
    options.name = preset->first;
    options.preset = preset->second;
  }
  options.model = config.agent.model;
  options.extra_args = config.agent.args;
  options.workspace = workspace;
  options.ralph_session = std::move(ralph_session);
  options.timeout = config.agent.timeout;
  options.idle_timeout = config.agent.idle_timeout;
  options.instructions = instructions(config);
  return options;
}

} // namespace

bool uses_external_agent(const Config& config) {
  return !config.agent.cli.empty() || !config.agent.command.empty();
}

std::string agent_label(const Config& config) {
  if (!config.agent.command.empty()) {
    return fmt::format("command `{}`", config.agent.command);
  }
  if (!config.agent.cli.empty()) {
    return config.agent.model.empty()
               ? config.agent.cli
               : fmt::format("{} ({})", config.agent.cli, config.agent.model);
  }
  return config.model;
}

Result<std::unique_ptr<agent::CommandAgent>>
make_external_agent(const Config& config, const std::filesystem::path& workspace,
                    tools::ProcessRunner& runner, std::string ralph_session) {
  TRY_ASSIGN(agent::CommandAgentOptions options,
             agent_options(config, workspace, std::move(ralph_session)));
  return std::make_unique<agent::CommandAgent>(runner, std::move(options));
}

Result<std::unique_ptr<PreparedRun>> prepare_external_agent(RunContext& context) {
  const Config& config = context.config();
  TRY(check_prices(config));
  if (config.judge.on_agent_model) {
    return fail(ErrorKind::config,
                "judge.model: an external agent's model cannot judge; give --judge PROVIDER/MODEL");
  }
  SessionContext& session = context.session();
  const std::string session_id = session.existing ? session.existing->id : new_session_id();
  TRY_ASSIGN(agent::CommandAgentOptions options,
             agent_options(config, context.workspace(), session_id));
  TRY_ASSIGN(VerifierSetup verifiers, build_verifiers(config, context.workspace(), context.runner(),
                                                      context.models(), session.baseline, true));
  auto prepared = std::make_unique<PreparedRun>();
  prepared->agent = std::make_unique<agent::CommandAgent>(context.runner(), std::move(options));
  prepared->run.emplace(LoopRun{
      .agent = *prepared->agent, .verifiers = std::move(verifiers), .session_id = session_id});
  return prepared;
}

} // namespace ralph::cli
