#include "ralph/session/settings.h"

#include "ralph/core/mcp_config.h"
#include "ralph/core/try.h"
#include "ralph/session/agents.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ralph::session {

std::filesystem::path user_config_file(const Environment& env) {
  if (const auto xdg = env.get("XDG_CONFIG_HOME"); xdg && !xdg->empty()) {
    return std::filesystem::path(*xdg) / "ralph" / "config.toml";
  }
  if (const auto home = env.get("HOME"); home && !home->empty()) {
    return std::filesystem::path(*home) / ".config" / "ralph" / "config.toml";
  }
  return {};
}

namespace {

// The servers of the workspace's `.mcp.json`, when it has one, after those of ralph's own files.
Result<void> apply_mcp_project_file(McpSettings& into, const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    return {};
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return fail(ErrorKind::config, fmt::format("{}: cannot be read", file.string()));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return apply_mcp_json(into, text.str(), file.string());
}

} // namespace

Result<Config> load_settings(const SettingsSources& sources, const Environment& env) {
  Config config = sources.defaults;
  if (const auto user = user_config_file(env); !user.empty()) {
    TRY(apply_config_file(config, user, true));
  }
  if (!sources.workspace.empty()) {
    TRY(apply_config_file(config, sources.workspace / ".ralph" / "config.toml", true));
  }
  if (!sources.extra_file.empty()) {
    TRY(apply_config_file(config, sources.extra_file, false));
  }
  // A `[[notify]]` entry's signing key may be in a RALPH_* variable of the user's naming.
  std::vector<std::string> names = env.names();
  std::erase_if(names, [&config](const std::string& name) {
    return std::any_of(config.notify.begin(), config.notify.end(),
                       [&name](const NotifyTarget& target) { return target.secret_env == name; });
  });
  TRY(check_environment_names(names));
  TRY(apply_environment(config, [&env](const char* name) { return env.c_str(name); }));
  apply_settings(config, sources.overrides);
  if (config.mcp.project_file && !sources.workspace.empty()) {
    TRY(apply_mcp_project_file(config.mcp, sources.workspace / ".mcp.json"));
  }
  return config;
}

Result<Config> recorded_settings(const store::SessionRow& row,
                                 const std::vector<Setting>& overrides) {
  Config config;
  TRY(apply_config_json(config, row.config_json, "session " + row.id));
  apply_settings(config, overrides);
  return config;
}

Result<std::filesystem::path> resolve_workspace(const std::string& dir) {
  std::error_code ec;
  const std::filesystem::path path =
      dir.empty() ? std::filesystem::current_path(ec) : std::filesystem::path(dir);
  const auto canonical = std::filesystem::canonical(path, ec);
  if (ec || !std::filesystem::is_directory(canonical, ec)) {
    return fail(ErrorKind::usage, fmt::format("--workspace {}: not a directory", path.string()));
  }
  return canonical;
}

Result<void> check_prices(const Config& config) {
  if (config.budget.max_cost_usd <= 0) {
    return {};
  }
  // An external agent CLI spends on its own models (and reports their cost where it can).
  std::vector<std::string> models;
  if (!uses_external_agent(config)) {
    models.push_back(config.model);
  }
  if (!config.judge.model.empty()) {
    models.push_back(config.judge.model);
  }
  if (!config.rlm.sub_model.empty()) {
    models.push_back(config.rlm.sub_model);
  }
  for (const auto& model : models) {
    if (config.prices.find(model) == config.prices.end()) {
      return fail(ErrorKind::config,
                  fmt::format("budget.max_cost_usd is set but [prices] has no entry for {}; add "
                              "[prices.\"{}\"] with input and output (USD per million tokens)",
                              model, model));
    }
  }
  return {};
}

} // namespace ralph::session
