#pragma once

#include "ralph/core/config.h"
#include "ralph/core/enum_names.h"
#include "ralph/core/error.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph::cli {

// The commands of `ralph chat`.
enum class SlashVerb {
  goal,
  verify,
  judge,
  status,
  budget,
  pause,
  resume,
  clear,
  stop,
  help,
  exit
};
inline constexpr EnumName<SlashVerb> k_slash_verb_names[] = {
    {SlashVerb::goal, "goal"},     {SlashVerb::verify, "verify"}, {SlashVerb::judge, "judge"},
    {SlashVerb::status, "status"}, {SlashVerb::budget, "budget"}, {SlashVerb::pause, "pause"},
    {SlashVerb::resume, "resume"}, {SlashVerb::clear, "clear"},   {SlashVerb::stop, "stop"},
    {SlashVerb::help, "help"},     {SlashVerb::exit, "exit"}};

struct SlashCommand {
  SlashVerb verb = SlashVerb::help;
  std::string argument; // trimmed; empty when none
};

// A chat line that starts with `/` as a command; nullopt for ordinary text (a line starting with
// `//` is text that starts with `/`, see chat_text). A usage error names the command and, for a
// mistyped one, the closest: "unknown command /stauts; did you mean /status? (/help lists them)".
Result<std::optional<SlashCommand>> parse_slash_command(std::string_view line);

// What an ordinary line says: `//text` is "/text".
std::string chat_text(std::string_view line);

// The /help text: every command with what it does, one per line.
std::string slash_help();

// `/budget iterations=5 tokens=200k cost=2 time=30m steps=40` (or `iterations 5`): each checked
// as the configuration checks it, as the configuration key it sets (`flag` "/budget"); a usage
// error names the first bad one.
Result<std::vector<ConfigOverride>> parse_budget_changes(std::string_view argument);

// The short name /budget uses for a configuration key ("loop.max_iterations": "iterations").
std::string_view budget_name(std::string_view key);

} // namespace ralph::cli
