#include "ralph/session/agents.h"

#include "ralph/agent/cli_stream.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/verify/completion_marker.h"

#include <fmt/format.h>

namespace ralph::session {
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

// How an external agent is to claim completion in verifier-first runs: the CLI reads no system
// prompt of ours, so its first prompt says it.
std::string external_instructions(const Config& config) {
  if (!config.evidence.enabled) {
    return {};
  }
  std::string out = std::string(trim(verify::completion_instructions(config.evidence.marker)));
  if (!config.evidence.instructions.empty()) {
    out += "\n\nHow to verify this goal: " + config.evidence.instructions;
  }
  return out;
}

Result<agent::CommandAgentOptions> external_options(const Config& config,
                                                    const std::filesystem::path& workspace,
                                                    const std::string& session_id) {
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
  TRY(check_evidence_agent(config));
  options.model = config.agent.model;
  options.extra_args = config.agent.args;
  options.workspace = workspace;
  options.ralph_session = session_id;
  options.timeout = config.agent.timeout;
  options.idle_timeout = config.agent.idle_timeout;
  options.instructions = external_instructions(config);
  return options;
}

} // namespace

Result<void> check_evidence_agent(const Config& config) {
  if (!config.evidence.enabled || !config.evidence.require || !uses_external_agent(config)) {
    return {};
  }
  CliFormat format = CliFormat::text;
  std::string name = "an --agent-cmd program";
  if (config.agent.command.empty()) {
    const auto preset = config.agents.find(config.agent.cli);
    if (preset == config.agents.end()) {
      return {}; // an unknown agent is its own error
    }
    format = preset->second.format;
    name = preset->first;
  }
  // Evidence is a check the agent ran with its exit code 0: a CLI that reports no exit codes
  // could never pass, however well it worked, and would be told it never ran the check.
  if (agent::reports_exit_codes(format)) {
    return {};
  }
  return fail(ErrorKind::config,
              fmt::format("evidence.enabled (--verifier-first): {} reports no exit codes of the "
                          "commands it runs, so no check it ran can be evidence; verify with "
                          "--verify-cmd CMD instead (ralph runs the check itself)",
                          name));
}

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

Result<std::unique_ptr<agent::CommandAgent>>
make_external_agent(const Config& config, const std::filesystem::path& workspace,
                    tools::ProcessRunner& runner, const std::string& session_id) {
  TRY_ASSIGN(agent::CommandAgentOptions options, external_options(config, workspace, session_id));
  return std::make_unique<agent::CommandAgent>(runner, std::move(options));
}

BuiltinAgent make_builtin_agent(const Config& config, const Model& model,
                                tools::ProcessRunner& runner,
                                const std::filesystem::path& workspace, const CancelToken& cancel,
                                const std::vector<verify::JudgeRulesFile>& rules,
                                McpConnections mcp) {
  BuiltinAgent made;
  made.mcp = std::move(mcp);
  made.tools =
      std::make_unique<tools::Registry>(tools::make_builtin_registry(config.tools, runner));
  add_mcp_tools(*made.tools, made.mcp, config.tools.output_limit);
  AgentSettings settings = config.agent;
  settings.system_prompt = agent_system_prompt(config, rules);
  made.agent = std::make_unique<agent::ReactAgent>(
      *model.provider, *made.tools, tools::ToolContext{.workspace = workspace, .cancel = cancel},
      model.spec, std::move(settings));
  return made;
}

} // namespace ralph::session
