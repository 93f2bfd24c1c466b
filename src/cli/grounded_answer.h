#pragma once

#include "cli/run_report.h"

#include "ralph/docqa/qa_checks.h"

#include <cstdio>

namespace ralph::cli {

// A QA answer for a person: its bullets, then each quote with where it occurs in the document
// (line, column, bytes, match level), and the budget notice.
void print_grounded_answer(std::FILE* out, const SessionReport& report,
                           const docqa::QaChecker& checker);

} // namespace ralph::cli
