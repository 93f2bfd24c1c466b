#pragma once

#include "ralph/core/error.h"
#include "ralph/session/report.h"
#include "ralph/tools/isolated_workspace.h"
#include "ralph/tools/workspace_changes.h"

#include <filesystem>
#include <optional>
#include <string>

namespace ralph::app {

// Where the attempts of one best-of-N session live and what they all start from.
struct Attempts {
  std::string session_id;
  std::filesystem::path dir;  // .ralph/attempts/<session>
  bool git = false;           // worktrees (else copies)
  std::string start;          // git: the commit every attempt starts from (the source as it was)
  std::filesystem::path base; // copies: an untouched copy every attempt starts from
};

// One attempt: where it worked, how its session ended and what it changed.
struct Candidate {
  int index = 0; // 1-based, as its folder and branch are named
  tools::IsolatedWorkspace workspace;
  std::optional<session::SessionReport> report;
  std::optional<Error> error; // what kept it from running, or from being measured
  std::string end_commit;     // git: its work, committed on its branch
  std::optional<tools::WorkspaceChanges> changes;
  std::filesystem::path diff_file;
};

} // namespace ralph::app
