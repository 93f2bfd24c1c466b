#include "cli/slash_command.h"

#include "cli/usage_hint.h"

#include "ralph/core/config.h"
#include "ralph/core/setting_names.h"
#include "ralph/core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace ralph::cli {
namespace {

struct VerbInfo {
  SlashVerb verb;
  const char* usage; // as /help shows it
  const char* does;
  bool takes_argument; // required for goal, verify, judge; optional for budget
};

constexpr std::array<VerbInfo, 11> k_verbs = {{
    {SlashVerb::goal, "/goal TEXT", "work on TEXT until the verifiers pass (verifier-first)", true},
    {SlashVerb::verify, "/verify CMD", "add a command verifier to the goal (exit 0 passes)", true},
    {SlashVerb::judge, "/judge MODEL",
     "an LLM judge on PROVIDER/MODEL for the goal (in place of the configured one)", true},
    {SlashVerb::status, "/status", "the goal, its attempt, the last verdicts and the budgets",
     false},
    {SlashVerb::budget, "/budget [NAME=VALUE ...]",
     "show or change the goal's budgets: iterations, steps, tokens, cost, time", false},
    {SlashVerb::pause, "/pause", "hold the goal once the current attempt ends", false},
    {SlashVerb::resume, "/resume", "go on with a held goal", false},
    {SlashVerb::clear, "/clear",
     "drop the goal, the conversation and what /verify, /judge and /budget added: a fresh start",
     false},
    {SlashVerb::stop, "/stop", "stop the current attempt now (the goal is held)", false},
    {SlashVerb::help, "/help", "this list", false},
    {SlashVerb::exit, "/exit", "leave (Ctrl-D too)", false},
}};

const VerbInfo& info(SlashVerb verb) {
  return *std::find_if(k_verbs.begin(), k_verbs.end(),
                       [verb](const VerbInfo& v) { return v.verb == verb; });
}

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) {
      ++at;
    }
    const std::size_t start = at;
    while (at < text.size() && text[at] != ' ' && text[at] != '\t') {
      ++at;
    }
    if (at > start) {
      out.emplace_back(text.substr(start, at - start));
    }
  }
  return out;
}

} // namespace

Result<std::optional<SlashCommand>> parse_slash_command(std::string_view line) {
  const std::string_view text = trim(line);
  if (text.empty() || text.front() != '/' || text.starts_with("//")) {
    return std::optional<SlashCommand>();
  }
  const std::size_t end = text.find_first_of(" \t");
  const std::string_view name = text.substr(1, end == std::string_view::npos ? end : end - 1);
  const std::string argument(end == std::string_view::npos ? "" : trim(text.substr(end)));
  const auto verb = value_of(k_slash_verb_names, name);
  if (!verb) {
    std::vector<std::string> names;
    names.reserve(std::size(k_slash_verb_names));
    for (const auto& [_, known] : k_slash_verb_names) {
      names.emplace_back(known);
    }
    const std::string near = closest_name(name, names);
    return fail(ErrorKind::usage,
                near.empty() ? fmt::format("unknown command /{} (/help lists them)", name)
                             : fmt::format("unknown command /{}; did you mean /{}? (/help lists "
                                           "them)",
                                           name, near));
  }
  const VerbInfo& known = info(*verb);
  if (known.takes_argument && argument.empty()) {
    return fail(ErrorKind::usage, fmt::format("{} needs its argument: {}",
                                              std::string("/") + std::string(name), known.usage));
  }
  if (!known.takes_argument && *verb != SlashVerb::budget && !argument.empty()) {
    return fail(ErrorKind::usage, fmt::format("/{} takes no argument", name));
  }
  return std::optional<SlashCommand>(SlashCommand{*verb, argument});
}

std::string chat_text(std::string_view line) {
  const std::string_view text = trim(line);
  return std::string(text.starts_with("//") ? text.substr(1) : text);
}

std::string slash_help() {
  std::string out;
  for (const VerbInfo& verb : k_verbs) {
    out += fmt::format("  {:<26} {}\n", verb.usage, verb.does);
  }
  out += "  Anything else is said to the agent and answered once, unverified; start a line with "
         "// to say something that starts with /.\n"
         "  Ctrl-C stops the current turn; Ctrl-D or /exit leaves.\n";
  return out;
}

Result<std::vector<ConfigOverride>> parse_budget_changes(std::string_view argument) {
  const std::vector<std::string> parts = words(argument);
  std::vector<ConfigOverride> out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string name = parts[i];
    std::string value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else if (i + 1 < parts.size()) {
      value = parts[++i];
    }
    // The names are the settings table's (core/setting_names.h).
    const SettingNames* known = find_budget_name(name);
    if (known == nullptr) {
      const std::string near = closest_name(name, budget_names());
      return fail(ErrorKind::usage,
                  fmt::format("/budget: unknown budget '{}'{} (iterations, steps, tokens, cost, "
                              "time)",
                              name, near.empty() ? "" : fmt::format("; did you mean '{}'?", near)));
    }
    if (value.empty()) {
      return fail(ErrorKind::usage, fmt::format("/budget: {} needs a value: {}=VALUE", name, name));
    }
    if (const auto problem = check_config_text(known->key, value)) {
      return fail(ErrorKind::usage, fmt::format("/budget {}={}: {}", name, value, *problem));
    }
    out.push_back({.key = std::string(known->key), .value = value, .flag = "/budget"});
  }
  return out;
}

std::string_view budget_name(std::string_view key) {
  const SettingNames* names = find_setting(key);
  return names == nullptr || names->budget_name.empty() ? key : names->budget_name;
}

} // namespace ralph::cli
