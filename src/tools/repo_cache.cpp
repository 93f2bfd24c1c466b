#include "ralph/tools/repo_cache.h"

#include "git_command.h"
#include "remote_url.h"
#include "unique_fd.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <system_error>
#include <vector>

namespace ralph::tools {
namespace {

namespace fs = std::filesystem;

// A clone or fetch of a large repository over a slow link.
constexpr std::chrono::milliseconds k_transfer_timeout = std::chrono::minutes(30);

// The folder of `url`: a hash, so that no credential of it is ever in a file name.
std::string folder_name(std::string_view url) {
  std::uint64_t hash = 1469598103934665603ULL; // FNV-1a
  for (const char c : url) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

// An exclusive flock(2) on `path`, held while the descriptor lives. Its own open file
// description, so two threads of one process exclude each other too. The file is never removed:
// unlinking it while another waits on the old inode would let two holders in.
Result<UniqueFd> lock_file(const fs::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    return fail(ErrorKind::io,
                fmt::format("cannot open lock file {}: {}", path.string(), std::strerror(errno)));
  }
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) {
      return fail(ErrorKind::io,
                  fmt::format("cannot lock {}: {}", path.string(), std::strerror(errno)));
    }
  }
  return fd;
}

bool resolves(ProcessRunner& runner, const fs::path& repo, const std::string& ref,
              const CancelToken& cancel) {
  return git(runner, repo,
             {"rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}"}, cancel)
      .has_value();
}

bool names_branch(ProcessRunner& runner, const fs::path& repo, const std::string& ref,
                  const CancelToken& cancel) {
  return ref == "HEAD" || ref.starts_with("refs/heads/") ||
         git(runner, repo, {"show-ref", "--verify", "--quiet", "refs/heads/" + ref}, cancel);
}

bool is_commit_id(const std::string& ref) {
  return ref.size() == 40 && ref.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Fetches `refspecs` from `url` into the clone, never into a branch a worktree has checked out:
// git refuses that (and the whole fetch with it), and the worktree's work would be lost.
Result<void> fetch(ProcessRunner& runner, const fs::path& repo, const std::string& url,
                   std::vector<std::string> refspecs, const CancelToken& cancel) {
  TRY_ASSIGN(const std::string worktrees,
             git(runner, repo, {"worktree", "list", "--porcelain"}, cancel));
  for (std::size_t start = 0; start < worktrees.size();) {
    const std::size_t end = std::min(worktrees.find('\n', start), worktrees.size());
    const std::string_view line = std::string_view(worktrees).substr(start, end - start);
    if (line.starts_with("branch ")) {
      refspecs.push_back("^" + std::string(line.substr(7)));
    }
    start = end + 1;
  }
  std::vector<std::string> args = {"fetch", "--quiet", "--end-of-options", url};
  args.insert(args.end(), refspecs.begin(), refspecs.end());
  TRY(git(runner, repo, GitCommand{.args = std::move(args), .timeout = k_transfer_timeout},
          cancel));
  return {};
}

// Clones `url` into `home/repo.git` through a temporary folder renamed when complete, so that a
// clone cut short by a crash is never taken for one (the next caller removes it and starts over).
Result<void> clone(ProcessRunner& runner, const fs::path& home, const fs::path& repo,
                   const std::string& url, const CancelToken& cancel) {
  const fs::path partial = home / "clone.tmp";
  std::error_code ec;
  fs::remove_all(partial, ec);
  TRY(git(
      runner, home,
      GitCommand{.args = {"clone", "--bare", "--quiet", "--end-of-options", url, partial.string()},
                 .timeout = k_transfer_timeout},
      cancel));
  // The URL may hold a password; fetches are given it again instead.
  TRY(git(runner, partial, {"remote", "remove", "origin"}, cancel));
  fs::rename(partial, repo, ec);
  if (ec) {
    return fail(ErrorKind::io, fmt::format("cannot move {} to {}: {}", partial.string(),
                                           repo.string(), ec.message()));
  }
  return {};
}

} // namespace

// Absolute: git runs in the repository's folder, where a relative path would mean another place.
RepoCache::RepoCache(const fs::path& dir) : m_dir(fs::absolute(dir).lexically_normal()) {}

Result<fs::path> RepoCache::clone_of(ProcessRunner& runner, const std::string& url,
                                     const std::string& ref, const CancelToken& cancel) {
  const fs::path home = m_dir / folder_name(url);
  const fs::path repo = home / "repo.git";
  const std::string wanted = ref.empty() ? "HEAD" : ref;
  const auto cloned = [&]() -> Result<void> {
    std::error_code ec;
    fs::create_directories(home, ec);
    if (ec) {
      return fail(ErrorKind::io, fmt::format("cannot create {}: {}", home.string(), ec.message()));
    }
    TRY_ASSIGN(const UniqueFd lock, lock_file(home / "lock"));
    if (!fs::exists(repo, ec)) {
      TRY(clone(runner, home, repo, url, cancel));
    } else if (!resolves(runner, repo, wanted, cancel) ||
               names_branch(runner, repo, wanted, cancel)) {
      TRY(fetch(runner, repo, url, {"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"},
                cancel));
    }
    if (resolves(runner, repo, wanted, cancel)) {
      return {};
    }
    // Commits and refs no branch or tag leads to (a pull request's head): asked for by name.
    if (is_commit_id(wanted) || wanted.starts_with("refs/")) {
      TRY(fetch(runner, repo, url, {is_commit_id(wanted) ? wanted : "+" + wanted + ":" + wanted},
                cancel));
      if (resolves(runner, repo, wanted, cancel)) {
        return {};
      }
    }
    return fail(ErrorKind::usage, fmt::format("ref {}: not a commit of {}, even after fetching",
                                              wanted, shown_remote(url)));
  }();
  if (!cloned) {
    if (cloned.error().kind == ErrorKind::usage) {
      return fail(cloned.error());
    }
    Error error = without_credentials(cloned.error(), url);
    error.message = fmt::format("repository {}: {}", shown_remote(url), error.message);
    return fail(std::move(error));
  }
  return repo;
}

} // namespace ralph::tools
