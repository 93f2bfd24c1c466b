#include "app/best_of/best_of_record.h"

#include "ralph/core/time.h"
#include "ralph/session/record.h"

#include <fmt/format.h>

namespace ralph::app {
namespace {

void release(store::SessionRow& row) {
  row.owner_pid = 0;
  row.owner_host.clear();
}

} // namespace

store::SessionRow parent_row(const std::string& id, const session::SessionRequest& goal,
                             const Redactor& redactor, std::chrono::system_clock::time_point now) {
  store::SessionRow row =
      session::new_session_row(id, goal.goal, goal.workspace, goal.config, redactor, {}, now);
  row.kind = store::SessionKind::best_of;
  return row;
}

void finish_row(store::SessionRow& row, const BestOfReport& report,
                const std::vector<Candidate>& candidates, const Redactor& redactor,
                std::chrono::milliseconds elapsed, std::chrono::system_clock::time_point now) {
  row.status = report.status;
  row.reason =
      report.winner ? fmt::format("attempt {} won: {}", *report.winner, report.why) : report.why;
  if (!report.apply_error.empty()) {
    row.reason += "; not applied: " + report.apply_error;
  }
  row.answer = redactor.redact(report.answer);
  row.verified = report.applied;
  row.iterations = static_cast<int>(candidates.size());
  row.cost_known = true;
  for (const Candidate& candidate : candidates) {
    if (candidate.report) {
      row.input_tokens += candidate.report->usage.input_tokens;
      row.output_tokens += candidate.report->usage.output_tokens;
      row.cost_usd += candidate.report->cost_usd.value_or(0);
      row.cost_known = row.cost_known && candidate.report->cost_usd.has_value();
    }
  }
  row.elapsed_ms = elapsed.count();
  row.updated_at = iso8601_utc(now);
  release(row);
}

void fail_row(store::SessionRow& row, const Error& error) {
  row.status = Status::failed;
  row.reason = error.message;
  release(row);
}

} // namespace ralph::app
