#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/session/environment.h"
#include "ralph/store/session_store.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::session {

// Where a configuration comes from, lowest first: `defaults` < the user's file
// (~/.config/ralph/config.toml) < the workspace's (.ralph/config.toml) < `extra_file` < the
// environment (RALPH_*) < `overrides`.
struct SettingsSources {
  std::filesystem::path workspace;  // its .ralph/config.toml, when there is one
  std::filesystem::path extra_file; // --config: must exist when given
  std::vector<Setting> overrides;   // flags, a goal's keys, a request's fields
  Config defaults;                  // a use case's own (heartbeat verifies its ticks)
};

// The configuration, loaded once from its sources and typed; a mistake is a config error naming
// its file and line, its flag, or its variable (a RALPH_* variable that names no setting is one,
// see check_environment_names).
Result<Config> load_settings(const SettingsSources& sources, const Environment& env);

// The user's configuration file: $XDG_CONFIG_HOME/ralph/config.toml, else
// ~/.config/ralph/config.toml; empty when neither folder is known.
std::filesystem::path user_config_file(const Environment& env);

// A recorded session's configuration (what it ran with, files and variables changed since do not
// change a session's rules halfway) with `overrides` over it.
Result<Config> recorded_settings(const store::SessionRow& row,
                                 const std::vector<Setting>& overrides);

// `dir` (the current directory when empty), canonical; a usage error ("--workspace DIR: not a
// directory") when it is none.
Result<std::filesystem::path> resolve_workspace(const std::string& dir);

// A cost budget is only a budget when every model it counts has a price: a config error naming
// the first model without one.
Result<void> check_prices(const Config& config);

} // namespace ralph::session
