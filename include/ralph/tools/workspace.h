#pragma once

#include "ralph/core/error.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace ralph::tools {

enum class Access { read, write };

// The guard every file tool goes through: maps a path the model gave to an absolute path that
// lies physically inside the workspace root, following symlinks (dangling ones included) the way
// the kernel would. Immutable after construction, so safe to share between threads. It checks
// names, not open files: a process racing to swap a directory for a symlink between `resolve`
// and the open is out of its scope (the shell tool is not confined either).
class Workspace {
public:
  // Canonicalises `root`; an Error (kind `io`) when it does not exist or is not a directory.
  static Result<Workspace> open(const std::filesystem::path& root);

  const std::filesystem::path& root() const { return m_root; }

  // An absolute path free of `.`, `..` and symlinks, inside the root; relative paths are taken
  // from the root. Errors (kind `tool`) for an empty path, a NUL byte, or a path that is or
  // resolves "outside the workspace" (the message names the path). With Access::write the root
  // itself is refused too. The path need not exist.
  Result<std::filesystem::path> resolve(std::string_view path, Access access) const;

  // `absolute` (a path returned by `resolve`) relative to the root, for messages: "." for the
  // root itself.
  std::string relative(const std::filesystem::path& absolute) const;

private:
  explicit Workspace(std::filesystem::path root) : m_root(std::move(root)) {}
  bool contains(const std::filesystem::path& absolute) const;

  std::filesystem::path m_root;
};

} // namespace ralph::tools
