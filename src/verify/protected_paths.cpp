#include "ralph/verify/protected_paths.h"

#include "ralph/core/try.h"
#include "ralph/tools/glob.h"
#include "ralph/tools/process_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <fstream>
#include <memory>
#include <openssl/evp.h>

namespace ralph::verify {
namespace {

namespace fs = std::filesystem;

struct DigestDeleter {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

Result<std::string> sha256_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return fail(ErrorKind::io, fmt::format("cannot read protected file {}", file.string()));
  }
  std::unique_ptr<EVP_MD_CTX, DigestDeleter> context(EVP_MD_CTX_new());
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    return fail(ErrorKind::internal, "cannot start a SHA-256 digest");
  }
  std::array<char, 64 * 1024> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    if (in.gcount() > 0) {
      EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest.data(), &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += fmt::format("{:02x}", digest[i]);
  }
  return hex;
}

// What git ignores among the untracked files of the work tree at `workspace`: files, and
// folders (ending in `/`) ignored as a whole. Empty outside a git work tree or without git.
std::vector<std::string> ignored_by_git(const fs::path& workspace) {
  tools::PosixProcessRunner runner;
  tools::ProcessSpec spec;
  spec.argv = {"git",      "-C",        workspace.string(),   "ls-files",   "-z",
               "--others", "--ignored", "--exclude-standard", "--directory"};
  spec.merge_stderr = false;
  spec.timeout = std::chrono::seconds(60);
  spec.output_limit = 64 * 1024 * 1024;
  spec.env = {{"GIT_TERMINAL_PROMPT", "0"}};
  std::vector<std::string> out;
  const auto result = runner.run(spec, CancelToken());
  if (!result || result->exit_code != 0 || result->output_truncated) {
    return out;
  }
  std::string_view rest = result->output;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\0');
    out.emplace_back(rest.substr(0, end));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool is_ignored(const std::vector<std::string>& ignored, const std::string& relative) {
  // The entry at or before `relative` in sorted order is the only folder that could hold it
  // (or the file itself), but nested folders sort apart, so look at each prefix.
  for (std::size_t slash = relative.find('/'); slash != std::string::npos;
       slash = relative.find('/', slash + 1)) {
    if (std::binary_search(ignored.begin(), ignored.end(), relative.substr(0, slash + 1))) {
      return true;
    }
  }
  return std::binary_search(ignored.begin(), ignored.end(), relative);
}

// A glob names files explicitly when its last part is more than a bare wildcard.
bool names_files(const std::string& glob) {
  const std::size_t slash = glob.find_last_of('/');
  const std::string last = slash == std::string::npos ? glob : glob.substr(slash + 1);
  return !last.empty() && last != "*" && last != "**";
}

} // namespace

Result<ProtectedSnapshot> snapshot_protected(const fs::path& workspace,
                                             const std::vector<std::string>& globs) {
  ProtectedSnapshot snapshot;
  std::vector<tools::Glob> matchers;
  std::vector<tools::Glob> naming; // the globs that name files, ignored ones included
  matchers.reserve(globs.size());
  for (const auto& glob : globs) {
    matchers.emplace_back(glob);
    if (names_files(glob)) {
      naming.emplace_back(glob);
    }
  }
  const std::vector<std::string> ignored = ignored_by_git(workspace);
  std::error_code ec;
  fs::recursive_directory_iterator it(workspace, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    return fail(ErrorKind::io, fmt::format("cannot walk {}: {}", workspace.string(), ec.message()));
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      return fail(ErrorKind::io,
                  fmt::format("cannot walk {}: {}", workspace.string(), ec.message()));
    }
    const fs::path relative = it->path().lexically_relative(workspace);
    const std::string first = relative.begin()->string();
    if (it->is_directory(ec) && !it->is_symlink(ec) && (first == ".git" || first == ".ralph")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) {
      continue;
    }
    const bool wanted = std::any_of(matchers.begin(), matchers.end(), [&](const tools::Glob& glob) {
      return glob.matches(relative);
    });
    if (!wanted) {
      continue;
    }
    const std::string name = relative.generic_string();
    if (is_ignored(ignored, name) &&
        std::none_of(naming.begin(), naming.end(),
                     [&](const tools::Glob& glob) { return glob.matches(relative); })) {
      continue;
    }
    TRY_ASSIGN(std::string digest, sha256_file(it->path()));
    snapshot.digests.emplace(name, std::move(digest));
  }
  return snapshot;
}

ProtectedPathsVerifier::ProtectedPathsVerifier(std::vector<std::string> globs,
                                               ProtectedSnapshot baseline)
    : m_globs(std::move(globs)), m_expected(std::move(baseline)) {}

void ProtectedPathsVerifier::before_verifiers(const Attempt& attempt) {
  m_before = snapshot_protected(attempt.workspace, m_globs);
}

void ProtectedPathsVerifier::after_verifiers(const Attempt& attempt) {
  if (!m_before || !*m_before) {
    m_before.reset();
    return;
  }
  const ProtectedSnapshot before = std::move(**m_before);
  m_before.reset();
  const auto after = snapshot_protected(attempt.workspace, m_globs);
  if (!after) {
    return; // the next verify reports the walk's error
  }
  // What the verifiers changed is theirs: later attempts are compared with it.
  for (const auto& [path, digest] : before.digests) {
    if (!after->digests.contains(path)) {
      m_expected.digests.erase(path);
    }
  }
  for (const auto& [path, digest] : after->digests) {
    const auto was = before.digests.find(path);
    if (was == before.digests.end() || was->second != digest) {
      m_expected.digests[path] = digest;
    }
  }
}

Verdict ProtectedPathsVerifier::verify(const Attempt& attempt, const CancelToken&) {
  const auto started = std::chrono::steady_clock::now();
  Verdict out;
  out.verifier = name();
  // Called on its own (a library user's loop): the state now is the agent's.
  const auto now = m_before ? *m_before : snapshot_protected(attempt.workspace, m_globs);
  if (!now) {
    out.result = Outcome::error;
    out.category = Category::not_runnable;
    out.feedback = now.error().message;
    return out;
  }
  std::vector<std::string> changes;
  for (const auto& [path, digest] : m_expected.digests) {
    const auto found = now->digests.find(path);
    if (found == now->digests.end()) {
      changes.push_back(fmt::format("{} (deleted)", path));
    } else if (found->second != digest) {
      changes.push_back(fmt::format("{} (modified)", path));
    }
  }
  for (const auto& [path, digest] : now->digests) {
    if (m_expected.digests.find(path) == m_expected.digests.end()) {
      changes.push_back(fmt::format("{} (added)", path));
    }
  }
  if (changes.empty()) {
    out.result = Outcome::pass;
    out.feedback = fmt::format("{} protected file(s) unchanged", m_expected.digests.size());
  } else {
    out.result = Outcome::fail;
    out.category = Category::rule_violation;
    out.feedback = fmt::format(
        "Protected files were changed: {}. These files are how your work is checked (matching "
        "{}); restore them and make the change in the code instead.",
        fmt::join(changes, ", "), fmt::join(m_globs, ", "));
  }
  out.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - started)
                        .count();
  return out;
}

} // namespace ralph::verify
