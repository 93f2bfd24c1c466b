#include "cli/worker_repos.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"

#include <fmt/format.h>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;

Result<void> git(tools::ProcessRunner& runner, std::vector<std::string> argv, const fs::path& cwd,
                 const CancelToken& cancel) {
  tools::ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = cwd;
  spec.timeout = std::chrono::minutes(30);
  spec.merge_stderr = false;
  spec.env = {{"GIT_TERMINAL_PROMPT", "0"}};
  TRY_ASSIGN(const auto ran, runner.run(spec, cancel));
  if (ran.exit_code != 0) {
    return fail(ErrorKind::io, fmt::format("{}: {}", fmt::join(spec.argv, " "),
                                           first_line(trim(ran.err_output), 300)));
  }
  return {};
}

// A folder name for `url`: FNV-1a of it, so two URLs never share a clone.
std::string folder_of(const std::string& url) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (const char c : url) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

} // namespace

Result<fs::path> worker_clone_of(tools::ProcessRunner& runner, const fs::path& cache_dir,
                                 const std::string& url, const CancelToken& cancel) {
  const fs::path into = cache_dir / folder_of(url);
  std::error_code ec;
  if (fs::exists(into / ".git", ec)) {
    TRY(git(runner,
            {"git", "fetch", "--quiet", "--prune", "origin", "+refs/heads/*:refs/remotes/origin/*"},
            into, cancel));
    return into;
  }
  fs::remove_all(into, ec); // a clone cut short by a crash
  fs::create_directories(cache_dir, ec);
  TRY(git(runner, {"git", "clone", "--quiet", "--", url, into.string()}, cache_dir, cancel));
  return into;
}

Result<void> worker_push_branch(tools::ProcessRunner& runner,
                                const tools::IsolatedWorkspace& workspace,
                                const std::string& remote, const CancelToken& cancel) {
  return git(runner,
             {"git", "push", "--quiet", "--force", remote,
              fmt::format("HEAD:refs/heads/{}", workspace.branch)},
             workspace.root, cancel);
}

} // namespace ralph::cli
