#pragma once

#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/core/redactor.h"
#include "ralph/core/status.h"
#include "ralph/loop/outer_loop.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace ralph::cli {

class TerminalView;

// What `ralph run` reports at the end, on the terminal or as the `--json` result object.
struct RunReport {
  std::string session_id;
  Status status = Status::failed;
  std::string reason;
  bool verified = false; // every verifier passed the delivered answer
  int iterations = 0;
  int best_iteration = 0;
  int steps = 0;
  int tool_calls = 0;
  std::string answer;
  std::string notice;
  std::vector<std::pair<int, verify::Verdict>> verdicts; // by iteration
  Usage usage;
  std::optional<double> cost_usd; // when every model used has a price
  std::int64_t duration_ms = 0;
  std::optional<Error> error;
};

// The report of `result`, every text in it redacted: it goes to stdout and stderr.
RunReport make_report(std::string session_id, const loop::LoopResult& result,
                      const Redactor& redactor);

// The `--json` result object of the design.
nlohmann::json report_json(const RunReport& report);

// The `--json` result object of the design, one line, on `out`.
void print_json_report(std::FILE* out, const RunReport& report);

// For a person: the answer when it was not streamed already, and the budget notice.
void print_answer(std::FILE* out, const TerminalView& view, const RunReport& report);

// The closing summary line; `with_reason` false leaves out the reason (an error said already).
std::string summary_line(const RunReport& report, bool with_reason = true);

} // namespace ralph::cli
