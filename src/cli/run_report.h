#pragma once

#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/core/status.h"

#include <cstdio>
#include <optional>
#include <string>

namespace ralph::cli {

// What `ralph run` reports at the end, on the terminal or as the `--json` result object.
struct RunReport {
  std::string session_id;
  Status status = Status::failed;
  int iterations = 0;
  int steps = 0;
  int tool_calls = 0;
  std::string answer;
  Usage usage;
  std::int64_t duration_ms = 0;
  std::optional<Error> error;
};

// The `--json` result object of the design, one line, on `out`.
void print_json_report(std::FILE* out, const RunReport& report);

// The closing summary line for a person.
std::string summary_line(const RunReport& report);

} // namespace ralph::cli
