#include "run_verifiers.h"

#include <exception>
#include <future>

namespace ralph::loop {
namespace {

verify::Verdict verify_safely(verify::Verifier& verifier, const verify::Attempt& attempt,
                              const CancelToken& cancel) {
  try {
    return verifier.verify(attempt, cancel);
  } catch (const std::exception& e) {
    verify::Verdict verdict;
    verdict.result = verify::Outcome::error;
    verdict.category = verify::Category::internal;
    verdict.feedback = std::string("the verifier failed: ") + e.what();
    return verdict;
  }
}

} // namespace

std::vector<verify::Verdict> run_verifiers(std::vector<VerifierEntry>& verifiers,
                                           const verify::Attempt& attempt,
                                           const CancelToken& cancel) {
  std::vector<verify::Verdict> verdicts(verifiers.size());
  for (VerifierEntry& entry : verifiers) {
    entry.verifier->before_verifiers(attempt);
  }
  std::vector<std::future<verify::Verdict>> running(verifiers.size());
  for (std::size_t i = 0; i < verifiers.size(); ++i) {
    verify::Verifier& verifier = *verifiers[i].verifier;
    if (verifier.independent()) {
      running[i] = std::async(std::launch::async, [&verifier, &attempt, &cancel] {
        return verify_safely(verifier, attempt, cancel);
      });
    }
  }
  for (std::size_t i = 0; i < verifiers.size(); ++i) {
    verdicts[i] = running[i].valid() ? running[i].get()
                                     : verify_safely(*verifiers[i].verifier, attempt, cancel);
  }
  for (VerifierEntry& entry : verifiers) {
    entry.verifier->after_verifiers(attempt);
  }
  for (std::size_t i = 0; i < verifiers.size(); ++i) {
    verify::Verdict& verdict = verdicts[i];
    if (verdict.verifier.empty()) {
      verdict.verifier = verifiers[i].verifier->name();
    }
    verdict.kind = verifiers[i].verifier->kind();
    if (!verdict.tests) {
      // A verifier without output of its own may still quote a test runner in its feedback.
      verdict.tests = verify::parse_test_summary(verdict.feedback);
    }
    if (verdict.result == verify::Outcome::error) {
      verdict.policy = verifiers[i].policy;
    }
  }
  return verdicts;
}

} // namespace ralph::loop
