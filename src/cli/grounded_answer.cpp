#include "cli/grounded_answer.h"

#include "ralph/docqa/qa_checks.h"

#include <fmt/format.h>

namespace ralph::cli {

void print_grounded_answer(std::FILE* out, const SessionReport& report,
                           const docqa::QaChecker& checker) {
  const docqa::GroundedDocument& document = checker.document();
  const docqa::QaReport checked = checker.check(report.answer);
  if (!checked.answer) {
    fmt::print(out, "{}\n", report.answer);
  } else {
    fmt::print(out, "Answer:\n");
    for (const std::string& bullet : checked.answer->bullets) {
      fmt::print(out, "  - {}\n", bullet);
    }
    fmt::print(out, "\nEvidence from {}:\n", document.name());
    for (std::size_t i = 0; i < checked.quotes.size(); ++i) {
      const docqa::QuoteReport& quote = checked.quotes[i];
      std::string where = "not found in the document";
      if (quote.match.level && !quote.match.occurrences.empty()) {
        const docqa::Span first = quote.match.occurrences.front();
        const docqa::Location at = docqa::locate(document.text(), first.begin);
        where = fmt::format("line {}, column {} (bytes {}-{}, {} match{})", at.line, at.column,
                            first.begin, first.end, to_string(*quote.match.level),
                            quote.match.occurrences.size() > 1
                                ? fmt::format(", {} occurrences", quote.match.occurrences.size())
                                : "");
      }
      fmt::print(out, "  {}. \"{}\"\n     {}\n", i + 1, quote.quote, where);
    }
  }
  if (!report.notice.empty()) {
    fmt::print(out, "\n{}\n", report.notice);
  }
  std::fflush(out);
}

} // namespace ralph::cli
