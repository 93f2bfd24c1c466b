#include "ralph/verify/protected_paths.h"

#include "ralph/core/try.h"
#include "ralph/tools/glob.h"

#include <fmt/format.h>

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

} // namespace

Result<ProtectedSnapshot> snapshot_protected(const fs::path& workspace,
                                             const std::vector<std::string>& globs) {
  ProtectedSnapshot snapshot;
  std::vector<tools::Glob> matchers;
  matchers.reserve(globs.size());
  for (const auto& glob : globs) {
    matchers.emplace_back(glob);
  }
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
    TRY_ASSIGN(std::string digest, sha256_file(it->path()));
    snapshot.digests.emplace(relative.generic_string(), std::move(digest));
  }
  return snapshot;
}

ProtectedPathsVerifier::ProtectedPathsVerifier(std::vector<std::string> globs,
                                               ProtectedSnapshot baseline)
    : m_globs(std::move(globs)), m_baseline(std::move(baseline)) {}

Verdict ProtectedPathsVerifier::verify(const Attempt& attempt, const CancelToken&) {
  const auto started = std::chrono::steady_clock::now();
  Verdict out;
  out.verifier = name();
  const auto now = snapshot_protected(attempt.workspace, m_globs);
  if (!now) {
    out.result = Outcome::error;
    out.category = Category::not_runnable;
    out.feedback = now.error().message;
    return out;
  }
  std::vector<std::string> changes;
  for (const auto& [path, digest] : m_baseline.digests) {
    const auto found = now->digests.find(path);
    if (found == now->digests.end()) {
      changes.push_back(fmt::format("{} (deleted)", path));
    } else if (found->second != digest) {
      changes.push_back(fmt::format("{} (modified)", path));
    }
  }
  for (const auto& [path, digest] : now->digests) {
    if (m_baseline.digests.find(path) == m_baseline.digests.end()) {
      changes.push_back(fmt::format("{} (added)", path));
    }
  }
  if (changes.empty()) {
    out.result = Outcome::pass;
    out.feedback = fmt::format("{} protected file(s) unchanged", m_baseline.digests.size());
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
