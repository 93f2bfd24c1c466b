#pragma once

#include "cli/command_line.h"
#include "cli/interrupt.h"
#include "cli/model_providers.h"
#include "cli/session_setup.h"

#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/engine/io.h"
#include "ralph/store/session_store.h"
#include "ralph/tools/process_runner.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace ralph::cli {

// Where a run is hosted: alone in its process (the default: its own blocking I/O, and Ctrl-C or
// SIGTERM cancels it), or as one of many sessions in one process (`ralph batch`, best of N) on an
// engine's Io and cancelled with its `parent` token.
struct Hosting {
  engine::Io* io = nullptr;            // null: the context's own engine::BlockingIo
  const CancelToken* parent = nullptr; // null: signals cancel the run
};

// What every run is assembled from, built once per command: the command line, the workspace, the
// configuration as loaded, the session it is recorded as (new or resumed), and the parts that
// reach outside: the clock, the process runner, the model providers, Ctrl-C. Commands add an
// agent and its verifiers and call run_loop (run_loop.h). Not copyable: parts point at each other.
class RunContext {
public:
  // `store` may be null (recording is off); `owned` keeps it alive when the context opened it.
  RunContext(RunArgs args, std::filesystem::path workspace, Config config,
             std::unique_ptr<store::SessionStore> owned, store::SessionStore* store,
             Hosting hosting = {});
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  // A new run from the command line: the workspace (`--workspace` or the current directory),
  // the configuration in its documented order, and the store it names.
  static Result<std::unique_ptr<RunContext>> open(const RunArgs& args, Hosting hosting = {});

  const RunArgs& args() const { return m_args; }
  const std::filesystem::path& workspace() const { return m_workspace; }
  const Config& config() const { return m_config; }
  Config& config() { return m_config; }
  SessionContext& session() { return m_session; }
  Clock& clock() { return m_io.clock(); }
  tools::ProcessRunner& runner() { return m_io.runner(); }
  ModelProviders& models() { return m_models; }
  // Cancelled by Ctrl-C (or SIGTERM) while the context lives, or with the hosting's parent.
  const CancelToken& cancel() const { return m_cancel; }

private:
  RunArgs m_args;
  std::filesystem::path m_workspace;
  Config m_config;
  std::unique_ptr<store::SessionStore> m_owned_store;
  SessionContext m_session;
  std::unique_ptr<engine::BlockingIo> m_own_io; // when hosted alone
  engine::Io& m_io;
  ModelProviders m_models;
  CancelToken m_cancel;
  std::optional<InterruptHandler> m_interrupt; // when hosted alone
};

// `--workspace DIR` (or the current directory), canonical; a usage error when not a directory.
Result<std::filesystem::path> resolve_workspace(const std::string& dir);

// The configuration for a run in `workspace`: defaults < user file < workspace file < --config <
// environment < flags. `defaults` is where the layers start: a command's own defaults (`ralph
// heartbeat` verifies heartbeats unless told not to).
Result<Config> load_config(const RunArgs& args, const std::filesystem::path& workspace,
                           Config defaults = {});

// A cost budget is only a budget when every model it counts has a price: a config error naming
// the first model without one.
Result<void> check_prices(const Config& config);

} // namespace ralph::cli
