#include "config_keys.h"

#include "ralph/core/settings.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

namespace ralph {

// Each CLI run non-interactively in the workspace, with its machine-readable output and
// unattended tool permissions; the prompt on stdin where the CLI reads it there, so no prompt is
// limited by the size of one argument.
AgentPresets default_agent_presets() {
  AgentPresets presets;
  const std::vector<std::string> claude = {"claude",           "-p",        "--output-format",
                                           "stream-json",      "--verbose", "--permission-mode",
                                           "bypassPermissions"};
  presets["claude"] = {.command = claude,
                       .resume = {},
                       .format = CliFormat::claude,
                       .model_args = {"--model", "{model}"},
                       .budget_args = {"--max-budget-usd", "{budget_usd}"},
                       .env = {}};
  presets["claude"].resume = claude;
  presets["claude"].resume.insert(presets["claude"].resume.end(), {"--resume", "{session}"});

  presets["codex"] = {.command = {"codex", "exec", "--json", "--sandbox", "workspace-write",
                                  "--skip-git-repo-check", "-"},
                      // Codex reads its options before the `resume` subcommand.
                      .resume = {"codex", "exec", "--json", "--sandbox", "workspace-write",
                                 "--skip-git-repo-check", "resume", "{session}", "-"},
                      .format = CliFormat::codex,
                      .model_args = {"--model", "{model}"},
                      .budget_args = {},
                      .env = {}};

  presets["gemini"] = {.command = {"gemini", "--output-format", "stream-json", "--approval-mode",
                                   "yolo", "--skip-trust"},
                       .resume = {"gemini", "--output-format", "stream-json", "--approval-mode",
                                  "yolo", "--skip-trust", "--resume", "{session}"},
                       .format = CliFormat::gemini,
                       .model_args = {"--model", "{model}"},
                       .budget_args = {},
                       .env = {}};

  // aider keeps no session: a later attempt reloads its chat history file instead.
  const std::vector<std::string> aider = {"aider",
                                          "--message-file",
                                          "{prompt_file}",
                                          "--yes-always",
                                          "--no-pretty",
                                          "--no-stream",
                                          "--no-fancy-input",
                                          "--no-auto-commits",
                                          "--no-dirty-commits",
                                          "--no-check-update",
                                          "--no-show-release-notes",
                                          "--analytics-disable",
                                          "--no-show-model-warnings"};
  presets["aider"] = {.command = aider,
                      .resume = {},
                      .format = CliFormat::aider,
                      .model_args = {"--model", "{model}"},
                      .budget_args = {},
                      .env = {}};

  // goose names its sessions itself; ralph names it after its own session to resume it.
  presets["goose"] = {.command = {"goose", "run", "--output-format", "stream-json", "--name",
                                  "ralph-{ralph_session}", "--instructions", "-"},
                      .resume = {"goose", "run", "--output-format", "stream-json", "--resume",
                                 "--name", "ralph-{ralph_session}", "--instructions", "-"},
                      .format = CliFormat::goose,
                      .model_args = {"--model", "{model}"},
                      .budget_args = {},
                      .env = {"GOOSE_MODE=auto"}};

  presets["opencode"] = {
      .command = {"opencode", "run", "--format", "json", "--auto"},
      .resume = {"opencode", "run", "--format", "json", "--auto", "--session", "{session}"},
      .format = CliFormat::opencode,
      .model_args = {"--model", "{model}"},
      .budget_args = {},
      .env = {}};
  return presets;
}

} // namespace ralph

namespace ralph::config_detail {
namespace {

constexpr std::string_view k_list_fields[] = {"command", "resume", "model_args", "budget_args",
                                              "env"};

std::vector<std::string>& list_field(AgentPreset& preset, std::string_view name) {
  if (name == "command") {
    return preset.command;
  }
  if (name == "resume") {
    return preset.resume;
  }
  if (name == "model_args") {
    return preset.model_args;
  }
  if (name == "budget_args") {
    return preset.budget_args;
  }
  return preset.env;
}

} // namespace

std::optional<std::string> apply_agent_presets(AgentPresets& into, const nlohmann::json& table) {
  if (!table.is_object()) {
    return std::string("agents: expected a table of agents ([agents.NAME])");
  }
  for (const auto& [name, fields] : table.items()) {
    if (!fields.is_object()) {
      return fmt::format("agents.{}: expected a table with command, resume, format, model_args, "
                         "budget_args, env",
                         name);
    }
    AgentPreset preset = into.count(name) != 0 ? into.find(name)->second : AgentPreset{};
    for (const auto& [field, value] : fields.items()) {
      const std::string place = fmt::format("agents.{}.{}", name, field);
      if (field == "format") {
        const auto format = value.is_string()
                                ? value_of(k_cli_format_names, value.get<std::string>())
                                : std::nullopt;
        if (!format) {
          return fmt::format("{}: expected one of claude, codex, gemini, goose, opencode, aider, "
                             "text",
                             place);
        }
        preset.format = *format;
        continue;
      }
      if (std::find(std::begin(k_list_fields), std::end(k_list_fields), field) ==
          std::end(k_list_fields)) {
        return fmt::format("{}: unknown field (an agent has command, resume, format, model_args, "
                           "budget_args, env)",
                           place);
      }
      std::vector<std::string> items;
      if (!value.is_array()) {
        return fmt::format("{}: expected a list of strings", place);
      }
      for (const auto& item : value) {
        if (!item.is_string()) {
          return fmt::format("{}: expected a list of strings", place);
        }
        items.push_back(item.get<std::string>());
      }
      if (field == "env") {
        for (const auto& item : items) {
          if (item.find('=') == std::string::npos || item.front() == '=') {
            return fmt::format("{}: \"{}\" is not NAME=value", place, item);
          }
        }
      }
      list_field(preset, field) = std::move(items);
    }
    if (preset.command.empty()) {
      return fmt::format("agents.{}: command is missing or empty", name);
    }
    into[name] = std::move(preset);
  }
  return std::nullopt;
}

nlohmann::json agent_presets_json(const AgentPresets& presets) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, preset] : presets) {
    out[name] = {{"command", preset.command},          {"resume", preset.resume},
                 {"format", to_string(preset.format)}, {"model_args", preset.model_args},
                 {"budget_args", preset.budget_args},  {"env", preset.env}};
  }
  return out;
}

} // namespace ralph::config_detail
