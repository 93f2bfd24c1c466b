#include "cli/requests.h"

#include "ralph/core/try.h"
#include "ralph/session/settings.h"

namespace ralph::cli {

Result<Config> load_config(const RunArgs& args, const std::filesystem::path& workspace,
                           const session::Environment& env, Config defaults) {
  TRY_ASSIGN(std::vector<Setting> flags, parse_settings(args.overrides));
  return session::load_settings({.workspace = workspace,
                                 .extra_file = args.config_file,
                                 .overrides = std::move(flags),
                                 .defaults = std::move(defaults)},
                                env);
}

session::Outputs outputs_of(const RunArgs& args) {
  return {.events_file = args.events_file,
          .append_events = args.append_events,
          .trace_dir = args.out_dir};
}

Result<session::SessionRequest> request_from(const RunArgs& args, const session::Environment& env) {
  TRY_ASSIGN(std::filesystem::path workspace, session::resolve_workspace(args.workspace));
  TRY_ASSIGN(Config config, load_config(args, workspace, env));
  return session::SessionRequest{.goal = args.goal,
                                 .workspace = std::move(workspace),
                                 .config = std::move(config),
                                 .outputs = outputs_of(args)};
}

} // namespace ralph::cli
