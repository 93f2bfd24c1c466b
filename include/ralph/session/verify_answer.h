#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/engine/io.h"
#include "ralph/loop/answer_check.h"
#include "ralph/session/runtime.h"
#include "ralph/verify/protected_paths.h"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ralph::session {

// An answer to check, made without ralph's agent (by a person's own agent CLI, or anyone).
struct VerifyRequest {
  std::string goal;
  std::string answer;
  // Which attempt of config.loop.max_iterations, for the feedback's words; 0: a check on its own
  // (the MCP `verify` tool), whose feedback names no attempt.
  int iteration = 1;
  // Where whole outputs too large for a record go; empty: only head and tail are kept.
  std::filesystem::path output_dir;
  // Told of each verdict as its verifier finishes (progress for a caller that shows it), on the
  // verifier's thread: independent verifiers finish on several threads at once.
  std::function<void(const verify::Verdict&)> on_verdict;
};

// Whether answers made without ralph's agent can be checked under `config`: verifier-first
// settings cannot (they need ralph's own agent's tool calls), a config error.
Result<void> check_verifiable(const Config& config);

// The verifiers a configuration asks for in a workspace, made ready to check answers (the core of
// the Stop hook): commands, external programs, checks, protected files and the judge. Verifier-
// first settings are an error here (they need ralph's own agent's tool calls).
class AnswerVerifier {
public:
  // `baseline` is the protected files' state recorded before the work began; none: the
  // workspace as it is now. An error names the setting (no verifier configured, a judge without
  // its key, a bad regex). `runtime` and `io` must outlive it.
  static Result<std::unique_ptr<AnswerVerifier>>
  prepare(Runtime& runtime, Config config, std::filesystem::path workspace, engine::Io& io,
          const std::optional<verify::ProtectedSnapshot>& baseline);
  ~AnswerVerifier();
  AnswerVerifier(const AnswerVerifier&) = delete;
  AnswerVerifier& operator=(const AnswerVerifier&) = delete;

  // A judge of the agent's own family, a --protect that matches nothing.
  const std::vector<std::string>& warnings() const;
  // The protected files' state the checks compare against.
  const verify::ProtectedSnapshot& baseline() const;
  // How many verifiers check() runs (so how many verdicts it gives).
  std::size_t verifier_count() const;

  // Runs every verifier on the answer and judges the verdicts as the outer loop would.
  loop::AnswerCheck check(const VerifyRequest& request, const CancelToken& cancel);

private:
  struct Parts;
  AnswerVerifier(Runtime& runtime, Config config, std::filesystem::path workspace, engine::Io& io);

  Config m_config;
  std::filesystem::path m_workspace;
  std::unique_ptr<Parts> m_parts;
};

// prepare() and check() in one call: an answer checked by the workspace's verifiers.
Result<loop::AnswerCheck> verify_answer(Runtime& runtime, const Config& config,
                                        const std::filesystem::path& workspace,
                                        const VerifyRequest& request, engine::Io& io,
                                        const CancelToken& cancel);

} // namespace ralph::session
