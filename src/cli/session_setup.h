#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/redactor.h"
#include "ralph/loop/session_resume.h"
#include "ralph/store/session_store.h"
#include "ralph/verify/protected_paths.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace ralph::cli {

// The session store's file: `store.url` when it names a file, else `store.path`, relative to the
// workspace unless absolute. With a PostgreSQL store, the default file's place: its folder
// (.ralph/) still holds what a run keeps beside the record (outputs/).
std::filesystem::path store_file(const Config& config, const std::filesystem::path& workspace);

// Where sessions go: a PostgreSQL URL (`store.url`), or store_file.
std::string store_location(const Config& config, const std::filesystem::path& workspace);

// Where whole verify outputs too large for the record go, beside the store:
// `.ralph/outputs/<session>/<attempt>-command-<command>.log`.
std::filesystem::path session_outputs_dir(const Config& config,
                                          const std::filesystem::path& workspace,
                                          const std::string& session_id);

// The session store the configuration names (store_location). Null when `store.enabled` is off.
Result<std::unique_ptr<store::SessionStore>> open_store(const Config& config,
                                                        const std::filesystem::path& workspace);

// A redactor for everything a run writes: the secret-looking environment (API keys included).
Redactor run_redactor();

// How a run is recorded: in `store` (null: not at all), as a new session or as the continuation
// of `existing` from `resumed`.
struct SessionContext {
  store::SessionStore* store = nullptr;
  std::optional<store::SessionRow> existing;
  std::optional<loop::ResumedRun> resumed;
  std::optional<verify::ProtectedSnapshot> baseline; // the recorded protected files' state
  store::SessionKind kind = store::SessionKind::run; // of a new session
  std::string parent_id; // of a new session: the best-of-N session it is an attempt of
};

// The row of a new session: its configuration without secrets, the protected files' baseline,
// and a resume point at the goal.
store::SessionRow new_session_row(const std::string& id, const std::string& goal,
                                  const std::filesystem::path& workspace, const Config& config,
                                  const Redactor& redactor,
                                  const verify::ProtectedSnapshot& baseline);

// The baseline recorded in a session row (empty when none was).
Result<verify::ProtectedSnapshot> baseline_from_row(const store::SessionRow& row);

} // namespace ralph::cli
