#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/tools/process_runner.h"

#include <filesystem>
#include <string>

namespace ralph::tools {

// Local clones of remote repositories kept in one folder and shared by every process of a
// machine (a flock per repository serialises clone and fetch). Each clone is a bare repository
// in `<dir>/<hash of the URL>/repo.git` whose branches and tags mirror the remote's; worktrees
// are made from it with make_isolated_workspace, and the branches they have checked out are never
// overwritten by a fetch. The URL is not stored in the clone: every fetch is given it again.
class RepoCache {
public:
  explicit RepoCache(const std::filesystem::path& dir);

  // A local clone of `url` (a URL, or an absolute path) in which `ref` resolves: cloned on first
  // use, fetched when `ref` does not resolve yet (a new commit or branch) or names a branch (so it
  // is the remote's newest). An empty `ref` means the remote's default branch, which the clone's
  // HEAD follows. The path is what IsolationRequest::source takes. Errors (kind io; usage for a ref
  // that does not exist even after fetching) name the URL with any password removed. Blocks the
  // calling thread while another process or thread clones or fetches the same URL; the git commands
  // run through `runner`. Thread-safe.
  Result<std::filesystem::path> clone_of(ProcessRunner& runner, const std::string& url,
                                         const std::string& ref, const CancelToken& cancel);

private:
  std::filesystem::path m_dir;
};

} // namespace ralph::tools
