#include "ralph/tools/workspace.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <deque>
#include <system_error>
#include <vector>

namespace ralph::tools {
namespace {

namespace fs = std::filesystem;

// The kernel's limit on symlinks followed in one lookup (MAXSYMLINKS); also stops loops.
constexpr int k_max_symlinks = 40;

// Resolves absolute `path` one component at a time as the kernel would: every symlink is
// followed (dangling ones and the last component included, since writing through a dangling
// link creates its target) and `..` after a symlink climbs from where the link points. From the
// first component that does not exist on, the rest is taken as written.
Result<fs::path> resolve_physically(const fs::path& path) {
  const fs::path relative = path.relative_path();
  std::deque<fs::path> pending(relative.begin(), relative.end());
  fs::path current = "/";
  int links = 0;
  bool missing = false;
  while (!pending.empty()) {
    fs::path part = std::move(pending.front());
    pending.pop_front();
    if (part.empty() || part == ".") {
      continue;
    }
    if (part == "..") {
      current = current.parent_path();
      continue;
    }
    fs::path next = current / part;
    if (!missing) {
      std::error_code ec;
      const fs::file_status status = fs::symlink_status(next, ec);
      if (status.type() == fs::file_type::symlink) {
        if (++links > k_max_symlinks) {
          return fail(ErrorKind::tool,
                      fmt::format("too many levels of symbolic links at {}", next.string()));
        }
        const fs::path target = fs::read_symlink(next, ec);
        if (ec) {
          return fail(ErrorKind::tool, fmt::format("cannot read the symbolic link {}: {}",
                                                   next.string(), ec.message()));
        }
        if (target.is_absolute()) {
          current = "/";
        }
        const fs::path target_parts = target.relative_path();
        pending.insert(pending.begin(), target_parts.begin(), target_parts.end());
        continue;
      }
      // Not found, or not searchable: nothing below can be resolved further (and the tool
      // opening it will fail the same way).
      missing = ec || status.type() == fs::file_type::not_found;
    }
    current = std::move(next);
  }
  return current;
}

} // namespace

Result<Workspace> Workspace::open(const fs::path& root) {
  std::error_code ec;
  fs::path canonical = fs::canonical(root, ec);
  if (ec) {
    return fail(ErrorKind::io,
                fmt::format("workspace {} is not usable: {}", root.string(), ec.message()));
  }
  if (!fs::is_directory(canonical, ec)) {
    return fail(ErrorKind::io, fmt::format("workspace {} is not a directory", root.string()));
  }
  return Workspace(std::move(canonical));
}

bool Workspace::contains(const fs::path& absolute) const {
  // Component-wise, so /work/ws2 is not inside /work/ws.
  auto inside = absolute.begin();
  for (const auto& part : m_root) {
    if (inside == absolute.end() || *inside != part) {
      return false;
    }
    ++inside;
  }
  return true;
}

Result<fs::path> Workspace::resolve(std::string_view path, Access access) const {
  if (path.empty()) {
    return fail(ErrorKind::tool, "the path is empty; give a path relative to the workspace root");
  }
  if (path.find('\0') != std::string_view::npos) {
    return fail(ErrorKind::tool, "the path contains a NUL byte");
  }
  const fs::path given(path);
  const fs::path absolute = given.is_absolute() ? given : m_root / given;
  TRY_ASSIGN(fs::path resolved, resolve_physically(absolute));
  if (!contains(resolved)) {
    const bool through_link = resolved != absolute.lexically_normal();
    return fail(ErrorKind::tool,
                fmt::format("`{}` {}is outside the workspace {}; file tools only work on paths "
                            "inside it (relative paths start at the workspace root)",
                            path,
                            through_link ? fmt::format("resolves to {}, which ", resolved.string())
                                         : std::string(),
                            m_root.string()));
  }
  if (access == Access::write && resolved == m_root) {
    return fail(ErrorKind::tool,
                fmt::format("`{}` is the workspace root itself, not a file", path));
  }
  return resolved;
}

std::string Workspace::relative(const fs::path& absolute) const {
  return absolute.lexically_relative(m_root).generic_string();
}

} // namespace ralph::tools
