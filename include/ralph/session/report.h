#pragma once

#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/core/redactor.h"
#include "ralph/core/status.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/store/session_store.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ralph::session {

// How a session ended, every text in it redacted: what a front door shows or returns (the
// design's `--json` result object is report_json).
struct SessionReport {
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
  std::optional<Error> record_failure; // the session record is incomplete
  std::string events_error;            // the events file could not be written in full
};

// The report of `result`, every text in it redacted; verdicts keep neither the judge's reasoning
// nor a command's output (the record has them).
SessionReport make_report(std::string session_id, const loop::LoopResult& result,
                          const Redactor& redactor);

// The report of a session that ended, rebuilt from its record (a batch killed between a goal's
// end and its results line).
SessionReport report_from_record(const store::SessionRecord& record);

// The design's result object: {"session_id", "status", "iterations", "answer", "verdicts",
// "usage", ...}.
nlohmann::json report_json(const SessionReport& report);

} // namespace ralph::session
