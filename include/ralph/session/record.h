#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/redactor.h"
#include "ralph/store/session_store.h"
#include "ralph/verify/protected_paths.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace ralph::session {

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

// The row of a new session owned by this process: its configuration without secrets, the
// protected files' baseline, and a resume point at the goal. `now` is the calendar time.
store::SessionRow
new_session_row(const std::string& id, const std::string& goal,
                const std::filesystem::path& workspace, const Config& config,
                const Redactor& redactor, const verify::ProtectedSnapshot& baseline,
                std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// The baseline recorded in a session row (empty when none was).
Result<verify::ProtectedSnapshot> baseline_from_row(const store::SessionRow& row);

} // namespace ralph::session
