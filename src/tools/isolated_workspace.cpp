#include "ralph/tools/isolated_workspace.h"

#include "git_command.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>
#include <vector>

namespace ralph::tools {
namespace {

namespace fs = std::filesystem;

// Copies `from` into `to` (which must not exist), leaving out `.git` and `.ralph` but keeping
// `.ralph/config.toml`; symlinks stay symlinks.
Result<void> copy_tree(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  for (auto it = fs::recursive_directory_iterator(from, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const fs::path relative = it->path().lexically_relative(from);
    const std::string top = relative.begin()->string();
    if (top == ".git" || (top == ".ralph" && relative != fs::path(".ralph") / "config.toml" &&
                          relative != fs::path(".ralph"))) {
      if (it->is_directory(ec)) {
        it.disable_recursion_pending();
      }
      continue;
    }
    const fs::path target = to / relative;
    if (it->is_symlink(ec)) {
      fs::copy_symlink(it->path(), target, ec);
    } else if (it->is_directory(ec)) {
      fs::create_directories(target, ec);
    } else {
      fs::copy_file(it->path(), target, fs::copy_options::overwrite_existing, ec);
    }
    if (ec) {
      return fail(ErrorKind::io, fmt::format("copying {} to {}: {}", it->path().string(),
                                             target.string(), ec.message()));
    }
  }
  if (ec) {
    return fail(ErrorKind::io, fmt::format("copying {}: {}", from.string(), ec.message()));
  }
  return {};
}

// The untracked, not ignored files of `source`, copied to the same places under `to`.
Result<void> copy_untracked(ProcessRunner& runner, const fs::path& source, const fs::path& to,
                            const CancelToken& cancel) {
  TRY_ASSIGN(const std::string listed,
             git(runner, source, {"ls-files", "--others", "--exclude-standard", "-z"}, cancel));
  std::error_code ec;
  for (std::size_t start = 0, end = 0; start < listed.size(); start = end + 1) {
    end = std::min(listed.find('\0', start), listed.size());
    const std::string_view name = std::string_view(listed).substr(start, end - start);
    if (name.empty()) {
      continue;
    }
    const fs::path target = to / fs::path(name);
    fs::create_directories(target.parent_path(), ec);
    fs::copy(source / fs::path(name), target,
             fs::copy_options::copy_symlinks | fs::copy_options::overwrite_existing, ec);
    if (ec) {
      return fail(ErrorKind::io,
                  fmt::format("copying {} to {}: {}", name, target.string(), ec.message()));
    }
  }
  return {};
}

// Whether `dir` is a bare repository (a RepoCache clone): worktrees are made from it as from a
// work tree, starting from its HEAD when no ref is given.
bool is_bare_repository(ProcessRunner& runner, const fs::path& dir, const CancelToken& cancel) {
  const auto bare = git(runner, dir, {"rev-parse", "--is-bare-repository"}, cancel);
  return bare && *bare == "true";
}

// `relative` under `root`; `root` itself (no trailing separator) when it is ".".
fs::path inside(const fs::path& root, const fs::path& relative) {
  return relative == "." ? root : (root / relative).lexically_normal();
}

} // namespace

bool in_git_repository(ProcessRunner& runner, const fs::path& dir, const CancelToken& cancel) {
  const auto inside = git(runner, dir, {"rev-parse", "--is-inside-work-tree"}, cancel);
  return inside && *inside == "true";
}

Result<IsolatedWorkspace> make_isolated_workspace(ProcessRunner& runner,
                                                  const IsolationRequest& request,
                                                  const CancelToken& cancel) {
  std::error_code ec;
  if (fs::exists(request.path, ec)) {
    return fail(ErrorKind::io, fmt::format("{}: already exists; a new workspace needs a free place",
                                           request.path.string()));
  }
  IsolatedWorkspace made;
  const bool bare = is_bare_repository(runner, request.source, cancel);
  if (!bare && !in_git_repository(runner, request.source, cancel)) {
    if (!request.ref.empty()) {
      return fail(ErrorKind::usage, fmt::format("ref {}: {} is not in a git repository",
                                                request.ref, request.source.string()));
    }
    TRY(copy_tree(request.source, request.path));
    made.path = made.root = request.path;
    return made;
  }
  std::string top = request.source.string();
  if (!bare) {
    TRY_ASSIGN(top, git(runner, request.source, {"rev-parse", "--show-toplevel"}, cancel));
  }
  std::string base;
  if (request.ref.empty() && !bare) {
    // A commit of the tracked files as they are now (nothing when there is no change).
    TRY_ASSIGN(base, git(runner, request.source, {"stash", "create"}, cancel));
    if (base.empty()) {
      TRY_ASSIGN(base, git(runner, request.source, {"rev-parse", "--verify", "HEAD"}, cancel));
    }
  } else {
    const std::string ref = request.ref.empty() ? "HEAD" : request.ref;
    auto resolved = git(runner, request.source,
                        {"rev-parse", "--verify", "--end-of-options", ref + "^{commit}"}, cancel);
    if (!resolved) {
      return fail(ErrorKind::usage,
                  fmt::format("ref {}: not a commit of the repository at {}", ref, top));
    }
    base = std::move(*resolved);
  }
  fs::create_directories(request.path.parent_path(), ec);
  TRY(git(runner, top,
          {"worktree", "add", "--quiet", "-b", request.branch, request.path.string(), base},
          cancel));
  made.worktree = true;
  made.root = request.path;
  made.path =
      bare ? request.path : inside(request.path, fs::path(request.source).lexically_relative(top));
  made.branch = request.branch;
  if (request.ref.empty() && !bare) {
    TRY(copy_untracked(runner, request.source, made.path, cancel));
  }
  return made;
}

Result<std::optional<IsolatedWorkspace>> find_isolated_workspace(ProcessRunner& runner,
                                                                 const IsolationRequest& request,
                                                                 const CancelToken& cancel) {
  std::error_code ec;
  if (!fs::is_directory(request.path, ec)) {
    return std::optional<IsolatedWorkspace>();
  }
  IsolatedWorkspace found;
  found.path = found.root = request.path;
  const bool bare = is_bare_repository(runner, request.source, cancel);
  if (!bare && !in_git_repository(runner, request.source, cancel)) {
    return std::optional<IsolatedWorkspace>(found);
  }
  const auto branch = git(runner, request.path, {"rev-parse", "--abbrev-ref", "HEAD"}, cancel);
  if (!branch || *branch != request.branch) {
    return fail(ErrorKind::io, fmt::format("{}: is not the worktree of branch {}",
                                           request.path.string(), request.branch));
  }
  found.worktree = true;
  found.branch = request.branch;
  if (bare) {
    return std::optional<IsolatedWorkspace>(found);
  }
  TRY_ASSIGN(const std::string top,
             git(runner, request.source, {"rev-parse", "--show-toplevel"}, cancel));
  found.path = inside(request.path, fs::path(request.source).lexically_relative(top));
  return std::optional<IsolatedWorkspace>(found);
}

} // namespace ralph::tools
