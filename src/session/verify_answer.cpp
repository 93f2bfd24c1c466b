#include "ralph/session/verify_answer.h"

#include "ralph/core/message.h"
#include "ralph/core/try.h"
#include "ralph/session/models.h"
#include "ralph/session/verifiers.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::session {
namespace {

// A verifier that tells `observer` of each verdict it gives; otherwise the one it wraps.
class ObservedVerifier final : public verify::Verifier {
public:
  ObservedVerifier(std::unique_ptr<verify::Verifier> inner,
                   const std::function<void(const verify::Verdict&)>& observer)
      : m_inner(std::move(inner)), m_observer(observer) {}
  std::string name() const override { return m_inner->name(); }
  verify::VerifierKind kind() const override { return m_inner->kind(); }
  bool independent() const override { return m_inner->independent(); }
  verify::Verdict verify(const verify::Attempt& attempt, const CancelToken& cancel) override {
    verify::Verdict verdict = m_inner->verify(attempt, cancel);
    m_observer(verdict);
    return verdict;
  }
  void before_verifiers(const verify::Attempt& attempt) override {
    m_inner->before_verifiers(attempt);
  }
  void after_verifiers(const verify::Attempt& attempt) override {
    m_inner->after_verifiers(attempt);
  }
  std::unique_ptr<verify::Verifier> release() { return std::move(m_inner); }

private:
  std::unique_ptr<verify::Verifier> m_inner;
  const std::function<void(const verify::Verdict&)>& m_observer;
};

} // namespace

struct AnswerVerifier::Parts {
  Parts(const Config& config, engine::Io& io, Runtime& runtime) : models(config, io, runtime) {}
  ModelProviders models;
  VerifierSetup setup;
};

AnswerVerifier::AnswerVerifier(Runtime& runtime, Config config, std::filesystem::path workspace,
                               engine::Io& io)
    : m_config(std::move(config)), m_workspace(std::move(workspace)),
      m_parts(std::make_unique<Parts>(m_config, io, runtime)) {}

AnswerVerifier::~AnswerVerifier() = default;

const std::vector<std::string>& AnswerVerifier::warnings() const {
  return m_parts->setup.warnings;
}

const verify::ProtectedSnapshot& AnswerVerifier::baseline() const {
  return m_parts->setup.baseline;
}

std::size_t AnswerVerifier::verifier_count() const {
  return m_parts->setup.entries.size();
}

Result<void> check_verifiable(const Config& config) {
  if (config.evidence.enabled) {
    return fail(ErrorKind::config, "evidence.enabled (--verifier-first) needs the tool calls of "
                                   "ralph's own agent; a hook sees only the answer: use verify "
                                   "commands");
  }
  return {};
}

Result<std::unique_ptr<AnswerVerifier>>
AnswerVerifier::prepare(Runtime& runtime, Config config, std::filesystem::path workspace,
                        engine::Io& io, const std::optional<verify::ProtectedSnapshot>& baseline) {
  TRY(check_verifiable(config));
  std::unique_ptr<AnswerVerifier> verifier(
      new AnswerVerifier(runtime, std::move(config), std::move(workspace), io));
  TRY_ASSIGN(verifier->m_parts->setup,
             build_verifiers(verifier->m_config, verifier->m_workspace, io.runner(),
                             verifier->m_parts->models, baseline, true, runtime.redactor()));
  if (verifier->m_parts->setup.entries.empty()) {
    return fail(ErrorKind::config,
                fmt::format("no verifier is configured for {}: add [verify] commands to "
                            ".ralph/config.toml there, or --verify-cmd CMD to the hook's command",
                            verifier->m_workspace.string()));
  }
  return verifier;
}

loop::AnswerCheck AnswerVerifier::check(const VerifyRequest& request, const CancelToken& cancel) {
  const std::vector<Message> conversation{
      Message{.role = Role::user, .content = request.goal},
      Message{.role = Role::assistant, .content = request.answer}};
  verify::Attempt attempt;
  attempt.iteration = std::max(request.iteration, 1);
  attempt.max_iterations = m_config.loop.max_iterations;
  // The feedback's "attempt N of M", unless this check is no attempt of any loop.
  const int max_iterations = request.iteration > 0 ? m_config.loop.max_iterations : 0;
  attempt.goal = request.goal;
  attempt.answer = request.answer;
  attempt.raw_answer = request.answer;
  attempt.conversation = conversation;
  attempt.attempt_begin = 1;
  attempt.metadata.stop_reason = "answered";
  attempt.workspace = m_workspace;
  attempt.output_dir = request.output_dir;
  auto& entries = m_parts->setup.entries;
  if (!request.on_verdict) {
    return loop::check_answer(entries, attempt, max_iterations, cancel);
  }
  // Observed for this check only: the verifiers are wrapped, run, and given back unwrapped.
  for (loop::VerifierEntry& entry : entries) {
    entry.verifier =
        std::make_unique<ObservedVerifier>(std::move(entry.verifier), request.on_verdict);
  }
  loop::AnswerCheck check = loop::check_answer(entries, attempt, max_iterations, cancel);
  for (loop::VerifierEntry& entry : entries) {
    entry.verifier = static_cast<ObservedVerifier&>(*entry.verifier).release();
  }
  return check;
}

Result<loop::AnswerCheck> verify_answer(Runtime& runtime, const Config& config,
                                        const std::filesystem::path& workspace,
                                        const VerifyRequest& request, engine::Io& io,
                                        const CancelToken& cancel) {
  TRY_ASSIGN(auto verifier, AnswerVerifier::prepare(runtime, config, workspace, io, std::nullopt));
  return verifier->check(request, cancel);
}

} // namespace ralph::session
