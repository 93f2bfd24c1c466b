#pragma once

#include "ralph/core/settings.h"
#include "ralph/docqa/grounded_document.h"
#include "ralph/docqa/qa_answer.h"
#include "ralph/verify/verifier.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ralph::docqa {

// What a grounded answer must look like. Lengths count Unicode code points.
struct QaRules {
  // The counts and lengths (code points) and the loosest match level accepted as verbatim.
  QaSettings limits;
  // ralph's own prompt texts (instructions, the question): a quote found in one of them is not
  // evidence from the document.
  std::vector<std::string> own_prompts;
};

struct QuoteReport {
  std::string quote;
  QuoteMatch match;      // the strictest level it was found at (up to casefold), and where
  bool accepted = false; // found at a level the rules accept, and no other problem
  std::vector<std::string> problems;
};

// Every hard rule applied to one answer.
struct QaReport {
  std::optional<QaAnswer> answer; // nullopt: the answer could not be parsed
  std::vector<std::string> problems;
  std::vector<QuoteReport> quotes;
  bool passed() const { return answer.has_value() && problems.empty(); }
};

QaReport check_qa_answer(std::string_view answer_text, const GroundedDocument& document,
                         const QaRules& rules);

// Where each quote was found: "quote 2: typographic, bytes 1204-1291 (line 40, column 5)", one
// line per quote, for the record and the report.
std::string describe_quote_matches(const QaReport& report, const GroundedDocument& document);

// The hard checks of one QA run, shared by its checks verifier, its judge and its report: the
// report of the last answer checked is kept, so each answer is looked up in the document once
// however many of them ask. `document` must outlive the checker. Thread-safe: a second caller
// with the same answer waits for the first and gets its report.
class QaChecker {
public:
  QaChecker(const GroundedDocument& document, QaRules rules)
      : m_document(document), m_rules(std::move(rules)) {}

  QaReport check(std::string_view answer) const;
  const GroundedDocument& document() const { return m_document; }

private:
  const GroundedDocument& m_document;
  QaRules m_rules;
  mutable std::mutex m_mutex;
  mutable std::string m_last_answer;
  mutable std::optional<QaReport> m_last_report;
};

// The hard checks of a QA answer as a verifier ("qa checks"): pass, or fail (`check_failed`) with
// every problem numbered. The verdict's reasoning records the level and byte offsets of every
// quote's occurrences. `checker` must outlive the verifier; verify() is thread-safe.
class QaChecksVerifier final : public verify::Verifier {
public:
  explicit QaChecksVerifier(const QaChecker& checker) : m_checker(checker) {}

  std::string name() const override { return "qa checks"; }
  verify::VerifierKind kind() const override { return verify::VerifierKind::checks; }
  verify::Verdict verify(const verify::Attempt& attempt, const CancelToken& cancel) override;

private:
  const QaChecker& m_checker;
};

} // namespace ralph::docqa
