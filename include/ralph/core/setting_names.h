#pragma once

// The names a configuration key goes by besides its own: the command-line flags that set it, its
// key in a goals file of `ralph batch`, its `/budget` name in `ralph chat`, an extra environment
// variable, and one line saying what it does. They are written beside each key in the key table
// (src/core/config_key_table*.cpp), so the flags, the goal keys, `/budget`, `--help` and
// docs/reference/configuration.md (printed from this table) cannot drift apart.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph {

// How a flag sets its key.
enum class FlagForm {
  value,     // --flag VALUE
  list_item, // --flag ITEM, repeatable: the first use replaces the key's list, later ones add to it
  fixed,     // --flag alone sets `fixed` (--no-stream: agent.stream = false)
  optional,  // --flag [VALUE]; alone it sets `fixed` (--judge: "agent", the agent's own model)
};

// One flag that sets a key.
struct SettingFlag {
  std::string_view names; // "--model,-m", as CLI11 declares it; messages name the first
  std::string_view key;   // filled in from the key's row
  FlagForm form = FlagForm::value;
  std::string_view value_name; // as --help shows the value: "N", "PROVIDER/MODEL"; fixed: empty
  std::string_view fixed;      // what a fixed flag, or an optional one given alone, sets
  std::string_view help;       // its --help line; empty: the key's help
  // The commands that take this flag when `ralph run` does not ("qa, task"); empty: run does.
  std::string_view commands;
};

// A configuration key and its names.
struct SettingNames {
  std::string_view key;  // "agent.max_steps"; filled in from the key's row
  std::string_view help; // what the key does, in one line
  std::vector<SettingFlag> flags;
  std::string_view goal_key;    // in a goals file ("max_steps"); empty: the dotted key only
  std::string_view budget_name; // in `/budget` ("steps"); empty: none
  std::string_view env_alias;   // a variable read besides RALPH_<KEY> ("RALPH_MAX_STEPS")
};

// Every key with its names, in the key table's order.
const std::vector<SettingNames>& setting_names();

// The names of `key`; nullptr for an unknown key.
const SettingNames* find_setting(std::string_view key);

// The flag whose first name is `name`, that sets `key` (when given) and takes `form` (when
// given): one flag name may set two keys (--max-steps: agent.max_steps for `run`, rlm.max_steps
// for `qa`) or one key in two forms. nullptr when no flag fits, or when more than one does.
const SettingFlag* find_flag(std::string_view name, std::string_view key = {},
                             std::optional<FlagForm> form = std::nullopt);

// The first of a flag's names ("--model" of "--model,-m").
std::string_view flag_name(const SettingFlag& flag);

// The flag's --help line: its own, or its key's.
std::string_view flag_help(const SettingFlag& flag);

// The key a goals-file key sets ("max_iterations": loop.max_iterations); nullptr when none.
const SettingNames* find_goal_key(std::string_view goal_key);

// The key a `/budget` name sets ("iterations": loop.max_iterations); nullptr when none.
const SettingNames* find_budget_name(std::string_view name);

// The goals-file keys and the `/budget` names, in the key table's order, for "did you mean"
// hints.
std::vector<std::string> goal_key_names();
std::vector<std::string> budget_names();

// The environment variable every key but `prices` is read from: RALPH_ and the key in upper case
// with dots as underscores (agent.max_steps: RALPH_AGENT_MAX_STEPS).
std::string env_variable(std::string_view key);

} // namespace ralph
