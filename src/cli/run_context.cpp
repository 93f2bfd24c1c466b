#include "cli/run_context.h"

#include "cli/external_agent.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <cstdlib>

namespace ralph::cli {
namespace {

const char* env(const char* name) {
  return std::getenv(name);
}

std::filesystem::path user_config_file() {
  if (const char* xdg = env("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::filesystem::path(xdg) / "ralph" / "config.toml";
  }
  if (const char* home = env("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".config" / "ralph" / "config.toml";
  }
  return {};
}

} // namespace

RunContext::RunContext(RunArgs args, std::filesystem::path workspace, Config config,
                       std::unique_ptr<store::SessionStore> owned, store::SessionStore* store,
                       Hosting hosting)
    : m_args(std::move(args)), m_workspace(std::move(workspace)), m_config(std::move(config)),
      m_owned_store(std::move(owned)),
      m_own_io(hosting.io == nullptr ? std::make_unique<engine::BlockingIo>() : nullptr),
      m_io(hosting.io == nullptr ? *m_own_io : *hosting.io), m_models(m_config, m_io),
      m_cancel(hosting.parent == nullptr ? CancelToken() : hosting.parent->child()) {
  m_session.store = store;
  if (hosting.parent == nullptr) {
    m_interrupt.emplace(m_cancel);
  }
}

Result<std::unique_ptr<RunContext>> RunContext::open(const RunArgs& args, Hosting hosting) {
  TRY_ASSIGN(std::filesystem::path workspace, resolve_workspace(args.workspace));
  TRY_ASSIGN(Config config, load_config(args, workspace));
  TRY_ASSIGN(std::unique_ptr<store::SessionStore> store, open_store(config, workspace));
  store::SessionStore* in_use = store.get();
  return std::make_unique<RunContext>(args, std::move(workspace), std::move(config),
                                      std::move(store), in_use, hosting);
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

Result<Config> load_config(const RunArgs& args, const std::filesystem::path& workspace,
                           Config defaults) {
  Config config = std::move(defaults);
  if (const auto user = user_config_file(); !user.empty()) {
    TRY(apply_config_file(config, user, true));
  }
  TRY(apply_config_file(config, workspace / ".ralph" / "config.toml", true));
  if (!args.config_file.empty()) {
    TRY(apply_config_file(config, args.config_file, false));
  }
  TRY(apply_environment(config, env));
  TRY(apply_overrides(config, args.overrides));
  return config;
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

} // namespace ralph::cli
