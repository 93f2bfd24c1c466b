#pragma once

#include "ralph/session/report.h"

#include <cstdio>
#include <string>

namespace ralph::cli {

class TerminalView;

using session::SessionReport;

// The `--json` result object of the design, one line, on `out`.
void print_json_report(std::FILE* out, const SessionReport& report);

// For a person: the answer when it was not streamed already, and the budget notice.
void print_answer(std::FILE* out, const TerminalView& view, const SessionReport& report);

// The closing summary line; `with_reason` false leaves out the reason (an error said already).
std::string summary_line(const SessionReport& report, bool with_reason = true);

} // namespace ralph::cli
