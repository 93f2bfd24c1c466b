#include "ralph/tools/workspace_changes.h"

#include "git_command.h"
#include "remote_url.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace ralph::tools {
namespace {

namespace fs = std::filesystem;

// Candidates' own branches are ralph's: its name on them whatever the user configured.
const std::vector<std::string> k_ralph_identity = {"-c", "user.name=ralph", "-c",
                                                   "user.email=ralph@localhost"};

// An index file of git's folder for one command sequence (GIT_INDEX_FILE), so that HEAD, the
// index and the files are left as they are; removed with the object.
class ScratchIndex {
public:
  static Result<std::unique_ptr<ScratchIndex>> make(ProcessRunner& runner, const fs::path& dir,
                                                    const std::string& name,
                                                    const CancelToken& cancel) {
    TRY_ASSIGN(const std::string path, git(runner, dir, {"rev-parse", "--git-path", name}, cancel));
    return std::unique_ptr<ScratchIndex>(new ScratchIndex(fs::absolute(dir / path)));
  }
  ~ScratchIndex() {
    std::error_code ec;
    fs::remove(m_path, ec);
  }
  ScratchIndex(const ScratchIndex&) = delete;
  ScratchIndex& operator=(const ScratchIndex&) = delete;

  std::vector<std::pair<std::string, std::string>> env() const {
    return {{"GIT_INDEX_FILE", m_path.string()}};
  }

private:
  explicit ScratchIndex(fs::path path) : m_path(std::move(path)) {}
  fs::path m_path;
};

// `git diff --numstat -z`: "added\tremoved\tpath\0" per file, "-\t-" for a binary file.
void read_numstat(const std::string& listed, WorkspaceChanges& changes) {
  for (std::size_t start = 0; start < listed.size();) {
    std::size_t end = listed.find('\0', start);
    if (end == std::string::npos) {
      end = listed.size();
    }
    const std::string_view entry = std::string_view(listed).substr(start, end - start);
    start = end + 1;
    const std::size_t tab1 = entry.find('\t');
    const std::size_t tab2 = tab1 == std::string_view::npos ? tab1 : entry.find('\t', tab1 + 1);
    if (tab2 == std::string_view::npos) {
      continue;
    }
    const std::string_view added = entry.substr(0, tab1);
    const std::string_view removed = entry.substr(tab1 + 1, tab2 - tab1 - 1);
    changes.added += added == "-" ? 1 : std::stoi(std::string(added));
    changes.removed += removed == "-" ? 1 : std::stoi(std::string(removed));
    changes.files.emplace_back(entry.substr(tab2 + 1));
  }
}

// A file as a copy holds it: its bytes, a symlink's target (marked), or nothing when absent.
std::optional<std::string> file_state(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (ec || !fs::exists(status)) {
    return std::nullopt;
  }
  if (fs::is_symlink(status)) {
    // Marked with a NUL, which no path holds, so it never equals a file's text.
    return std::string(1, '\0') + "symlink:" + fs::read_symlink(path, ec).string();
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The files and symlinks under `root`, relative, leaving out `.git` and `.ralph` at the top.
std::set<std::string> list_files(const fs::path& root) {
  std::set<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const fs::path relative = it->path().lexically_relative(root);
    const std::string top = relative.begin()->string();
    if (top == ".git" || top == ".ralph") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec) || it->is_regular_file(ec)) {
      out.insert(relative.generic_string());
    }
  }
  return out;
}

} // namespace

Result<std::string> commit_worktree(ProcessRunner& runner, const IsolatedWorkspace& workspace,
                                    const std::string& message, const CancelToken& cancel) {
  // ralph's folders hold sessions and verify logs, never an attempt's work.
  TRY(git(runner, workspace.root, {"add", "-A", "--", ".", ":(exclude,glob)**/.ralph/**"}, cancel));
  std::vector<std::string> args = k_ralph_identity;
  args.insert(args.end(), {"commit", "--quiet", "--allow-empty", "--no-verify", "-m", message});
  TRY(git(runner, workspace.root, std::move(args), cancel));
  return git(runner, workspace.root, {"rev-parse", "--verify", "HEAD"}, cancel);
}

Result<std::string> worktree_patch(ProcessRunner& runner, const IsolatedWorkspace& workspace,
                                   const std::string& from, const CancelToken& cancel) {
  TRY_ASSIGN(const auto index,
             ScratchIndex::make(runner, workspace.root, "ralph-checkpoint.index", cancel));
  const auto env = index->env();
  TRY(git(runner, workspace.root, GitCommand{.args = {"read-tree", from}, .env = env}, cancel));
  TRY(git(runner, workspace.root,
          GitCommand{.args = {"add", "-A", "--", ".", ":(exclude,glob)**/.ralph/**"}, .env = env},
          cancel));
  return git(runner, workspace.root,
             GitCommand{.args = {"diff", "--cached", "--no-renames", "--binary", from, "--"},
                        .env = env,
                        .trim = false},
             cancel);
}

Result<std::string> snapshot_worktree(ProcessRunner& runner, const fs::path& dir,
                                      const std::string& ref, const std::string& message,
                                      const CancelToken& cancel) {
  // One index per process and ref: sessions of one repository may snapshot at once.
  std::string name = "ralph-snapshot.index." + std::to_string(::getpid()) + "." + ref;
  std::replace(name.begin(), name.end(), '/', '.');
  TRY_ASSIGN(const auto index, ScratchIndex::make(runner, dir, name, cancel));
  const auto env = index->env();
  const auto head = git(runner, dir, {"rev-parse", "--verify", "--quiet", "HEAD"}, cancel);
  if (head) {
    TRY(git(runner, dir, GitCommand{.args = {"read-tree", *head}, .env = env}, cancel));
  }
  TRY(git(runner, dir,
          GitCommand{.args = {"-c", "core.fsmonitor=false", "add", "-A", "--", ".",
                              ":(exclude,glob)**/.ralph/**"},
                     .env = env},
          cancel));
  TRY_ASSIGN(const std::string tree,
             git(runner, dir, GitCommand{.args = {"write-tree"}, .env = env}, cancel));
  std::vector<std::string> args = k_ralph_identity;
  args.insert(args.end(), {"commit-tree", tree, "-m", message});
  if (head) {
    args.insert(args.end(), {"-p", *head});
  }
  TRY_ASSIGN(const std::string commit, git(runner, dir, std::move(args), cancel));
  TRY(git(runner, dir, {"update-ref", ref, commit}, cancel));
  return commit;
}

Result<WorkspaceChanges> changes_between_commits(ProcessRunner& runner, const fs::path& dir,
                                                 const std::string& from, const std::string& to,
                                                 const CancelToken& cancel) {
  WorkspaceChanges changes;
  TRY_ASSIGN(const std::string listed,
             git(runner, dir, {"diff", "--no-renames", "--numstat", "-z", from, to, "--"}, cancel));
  read_numstat(listed, changes);
  // Untrimmed: a binary file's patch ends in a blank line, without which git apply skips it.
  TRY_ASSIGN(
      changes.patch,
      git(runner, dir,
          GitCommand{.args = {"diff", "--no-renames", "--binary", from, to, "--"}, .trim = false},
          cancel));
  return changes;
}

Result<WorkspaceChanges> changes_between_folders(ProcessRunner& runner, const fs::path& before,
                                                 const fs::path& after, const CancelToken& cancel) {
  std::set<std::string> names = list_files(before);
  names.merge(list_files(after));
  WorkspaceChanges changes;
  for (const std::string& name : names) {
    const auto old_state = file_state(before / name);
    const auto new_state = file_state(after / name);
    if (old_state == new_state) {
      continue;
    }
    changes.files.push_back(name);
    const bool text = (!old_state || old_state->find('\0') == std::string::npos) &&
                      (!new_state || new_state->find('\0') == std::string::npos);
    if (!text) {
      changes.added += new_state ? 1 : 0;
      changes.removed += old_state ? 1 : 0;
      changes.patch += fmt::format("Binary files a/{} and b/{} differ\n", name, name);
      continue;
    }
    ProcessSpec spec{.argv = {"diff", "-u", "--label", old_state ? "a/" + name : "/dev/null",
                              "--label", new_state ? "b/" + name : "/dev/null",
                              old_state ? (before / name).string() : "/dev/null",
                              new_state ? (after / name).string() : "/dev/null"}};
    spec.output_limit = 64 * 1024 * 1024;
    spec.merge_stderr = false;
    TRY_ASSIGN(const ProcessResult diff, runner.run(spec, cancel));
    if (diff.exit_code != 1) {
      return fail(ErrorKind::io,
                  fmt::format("diff of {} in {} and {}: {}", name, before.string(), after.string(),
                              first_line(trim(diff.err_output), 300)));
    }
    std::istringstream lines(diff.output);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("+") && !line.starts_with("+++ ")) {
        ++changes.added;
      } else if (line.starts_with("-") && !line.starts_with("--- ")) {
        ++changes.removed;
      }
    }
    changes.patch += diff.output;
  }
  return changes;
}

Result<std::string> apply_as_commit(ProcessRunner& runner, const fs::path& dir,
                                    const std::string& from, const std::string& to,
                                    const WorkspaceChanges& changes, const std::string& message,
                                    const CancelToken& cancel) {
  TRY_ASSIGN(const std::string top, git(runner, dir, {"rev-parse", "--show-toplevel"}, cancel));
  TRY_ASSIGN(const std::string head, git(runner, top, {"rev-parse", "--verify", "HEAD"}, cancel));
  // The commit is built in an index of its own: HEAD's tree plus the changes, merged three ways
  // against `from` so that uncommitted work of the user's never rides along in it.
  TRY_ASSIGN(const std::string index_name,
             git(runner, top, {"rev-parse", "--git-path", "ralph-apply-index"}, cancel));
  const fs::path index =
      fs::path(index_name).is_absolute() ? fs::path(index_name) : fs::path(top) / index_name;
  std::error_code ec;
  fs::remove(index, ec);
  const std::vector<std::pair<std::string, std::string>> own_index = {
      {"GIT_INDEX_FILE", index.string()}};
  const auto tree = [&]() -> Result<std::string> {
    TRY(git(runner, top, GitCommand{.args = {"read-tree", head}, .env = own_index}, cancel));
    const auto merged = git(runner, top,
                            GitCommand{.args = {"apply", "--cached", "--3way", "-"},
                                       .env = own_index,
                                       .input = changes.patch},
                            cancel);
    if (!merged) {
      return fail(ErrorKind::io, fmt::format("the changes of {}..{} conflict with HEAD ({}): {}",
                                             from.substr(0, 12), to.substr(0, 12),
                                             head.substr(0, 12), merged.error().message));
    }
    return git(runner, top, GitCommand{.args = {"write-tree"}, .env = own_index}, cancel);
  }();
  fs::remove(index, ec);
  if (!tree) {
    return fail(tree.error());
  }
  // The user's identity when git knows one (it refuses to guess), else ralph's.
  std::vector<std::string> args;
  if (!git(runner, top, {"var", "GIT_AUTHOR_IDENT"}, cancel) ||
      !git(runner, top, {"var", "GIT_COMMITTER_IDENT"}, cancel)) {
    args = k_ralph_identity;
  }
  args.insert(args.end(), {"commit-tree", *tree, "-p", head, "-m", message});
  TRY_ASSIGN(const std::string commit, git(runner, top, std::move(args), cancel));
  const auto applies = git(
      runner, top, GitCommand{.args = {"apply", "--check", "-"}, .input = changes.patch}, cancel);
  if (!applies) {
    return fail(ErrorKind::io, fmt::format("the work tree at {} changed where the changes go: {}",
                                           top, applies.error().message));
  }
  TRY(git(runner, top, GitCommand{.args = {"apply", "-"}, .input = changes.patch}, cancel));
  // Moves the branch only if it is still where the commit was built on.
  const auto moved =
      git(runner, top, {"update-ref", "-m", first_line(message, 200), "HEAD", commit, head},
          CancelToken());
  if (!moved) {
    (void)git(runner, top, GitCommand{.args = {"apply", "-R", "-"}, .input = changes.patch},
              CancelToken());
    return fail(moved.error());
  }
  if (!changes.files.empty()) {
    std::vector<std::string> reset = {"reset", "--quiet", "--"};
    reset.insert(reset.end(), changes.files.begin(), changes.files.end());
    TRY(git(runner, top,
            GitCommand{.args = std::move(reset), .env = {{"GIT_LITERAL_PATHSPECS", "1"}}},
            CancelToken()));
  }
  return commit;
}

Result<void> apply_folder_changes(const fs::path& before, const fs::path& after,
                                  const WorkspaceChanges& changes, const fs::path& target) {
  for (const std::string& name : changes.files) {
    const auto now = file_state(target / name);
    if (now != file_state(before / name) && now != file_state(after / name)) {
      return fail(ErrorKind::io,
                  fmt::format("{}: changed since the attempts started; nothing was applied",
                              (target / name).string()));
    }
  }
  std::error_code ec;
  for (const std::string& name : changes.files) {
    const fs::path from = after / name;
    const fs::path to = target / name;
    const fs::file_status status = fs::symlink_status(from, ec);
    if (!fs::exists(status)) {
      fs::remove(to, ec);
    } else {
      fs::create_directories(to.parent_path(), ec);
      if (fs::is_symlink(status)) {
        fs::remove(to, ec);
        fs::copy_symlink(from, to, ec);
      } else {
        fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
      }
    }
    if (ec) {
      return fail(ErrorKind::io, fmt::format("applying {}: {}", to.string(), ec.message()));
    }
  }
  return {};
}

Result<void> push_branch(ProcessRunner& runner, const IsolatedWorkspace& workspace,
                         const std::string& remote, const CancelToken& cancel) {
  if (workspace.branch.empty()) {
    return fail(ErrorKind::usage, fmt::format("{}: a copy, not a git worktree; it has no branch "
                                              "to push",
                                              workspace.root.string()));
  }
  const std::string ref = "refs/heads/" + workspace.branch;
  const auto pushed = git(runner, workspace.root,
                          GitCommand{.args = {"push", "--quiet", "--force", "--end-of-options",
                                              remote, ref + ":" + ref},
                                     .timeout = std::chrono::minutes(30)},
                          cancel);
  if (!pushed) {
    Error error = without_credentials(pushed.error(), remote);
    error.message = fmt::format("pushing branch {} to {}: {}", workspace.branch,
                                shown_remote(remote), error.message);
    return fail(std::move(error));
  }
  return {};
}

Result<void> apply_patch(ProcessRunner& runner, const fs::path& dir, const std::string& patch,
                         const CancelToken& cancel) {
  if (patch.empty()) {
    return {}; // git apply calls no patch at all an error
  }
  // git apply is all or nothing: one hunk that does not fit and no file is touched.
  const auto applied = git(runner, dir, GitCommand{.args = {"apply", "-"}, .input = patch}, cancel);
  if (!applied && applied.error().kind == ErrorKind::cancelled) {
    return fail(applied.error());
  }
  if (!applied) {
    return fail(ErrorKind::io,
                fmt::format("the patch does not apply to {}; nothing was changed: {}", dir.string(),
                            applied.error().message));
  }
  return {};
}

} // namespace ralph::tools
