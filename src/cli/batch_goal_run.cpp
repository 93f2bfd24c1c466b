#include "cli/batch_goal_run.h"

#include "cli/run_command.h"
#include "cli/run_context.h"
#include "cli/run_loop.h"

#include "ralph/core/try.h"
#include "ralph/loop/session_resume.h"

#include <fmt/format.h>

#include <exception>

namespace ralph::cli {
namespace {

// The context a resumed goal runs in: its recorded configuration, flags and goal keys over it.
Result<std::unique_ptr<RunContext>> resumed_context(const GoalLaunch& launch,
                                                    const store::SessionRecord& record,
                                                    const Hosting& hosting) {
  const store::SessionRow& row = record.session;
  Config config;
  TRY(apply_config_json(config, row.config_json, "session " + row.id));
  TRY(apply_overrides(config, launch.args.overrides));
  TRY_ASSIGN(config, goal_config(std::move(config), *launch.goal));
  TRY_ASSIGN(loop::ResumedRun resumed, loop::resume_from_record(record));
  TRY_ASSIGN(verify::ProtectedSnapshot baseline, baseline_from_row(row));
  RunArgs args = launch.args;
  args.goal = launch.goal->goal;
  auto context = std::make_unique<RunContext>(std::move(args), launch.workspace, std::move(config),
                                              nullptr, launch.store, hosting);
  context->session().existing = row;
  context->session().resumed = std::move(resumed);
  context->session().baseline = std::move(baseline);
  return context;
}

Result<RunReport> run_goal(engine::Io& io, const GoalLaunch& launch) {
  const Hosting hosting{.io = &io, .parent = launch.parent};
  std::unique_ptr<RunContext> context;
  if (launch.resume) {
    TRY_ASSIGN(const auto record, launch.store->load(launch.session_id));
    if (record) {
      TRY_ASSIGN(context, resumed_context(launch, *record, hosting));
    }
  }
  if (!context) {
    RunArgs args = launch.args;
    args.goal = launch.goal->goal;
    context = std::make_unique<RunContext>(std::move(args), launch.workspace, launch.config,
                                           nullptr, launch.store, hosting);
  }
  TRY_ASSIGN(const auto prepared, prepare_agent(*context));
  LoopRun& run = *prepared->run;
  run.session_id = launch.session_id;
  run.stream_text = false;
  TRY_ASSIGN(SessionRun ran, run_session(*context, run, *launch.events));
  if (ran.record_failure && !ran.report.error) {
    ran.report.error = ran.record_failure;
  }
  return std::move(ran.report);
}

RunReport failed_report(const GoalLaunch& launch, Error error) {
  RunReport report;
  report.status = Status::failed;
  report.reason = error.message;
  // A session id only when there is a record to look at.
  if (const auto row = launch.store->find_session(launch.session_id); row && *row) {
    report.session_id = launch.session_id;
  }
  report.error = std::move(error);
  return report;
}

} // namespace

RunReport run_batch_goal(engine::Io& io, const GoalLaunch& launch) {
  try {
    auto report = run_goal(io, launch);
    if (!report) {
      Error error = report.error();
      error.message = run_redactor().redact(error.message);
      return failed_report(launch, std::move(error));
    }
    return std::move(*report);
  } catch (const std::exception& e) {
    // One goal's programmer error must not take the other goals' process down with it.
    return failed_report(launch, Error{.kind = ErrorKind::internal,
                                       .message = fmt::format("internal error: {}", e.what())});
  }
}

RunReport report_from_record(const store::SessionRecord& record) {
  const store::SessionRow& row = record.session;
  RunReport report;
  report.session_id = row.id;
  report.status = row.status;
  report.reason = row.reason;
  report.verified = row.verified;
  report.iterations = row.iterations;
  report.best_iteration = row.best_iteration;
  report.answer = row.answer;
  report.usage.input_tokens = row.input_tokens;
  report.usage.output_tokens = row.output_tokens;
  report.usage.estimated = row.usage_estimated;
  if (row.cost_known && row.cost_usd > 0) {
    report.cost_usd = row.cost_usd;
  }
  report.duration_ms = row.elapsed_ms;
  for (const store::AttemptRow& attempt : record.attempts) {
    report.steps += attempt.steps;
    report.tool_calls += attempt.tool_calls;
  }
  for (const store::VerdictRow& row_verdict : record.verdicts) {
    verify::Verdict verdict;
    verdict.verifier = row_verdict.verifier;
    verdict.result = row_verdict.result;
    verdict.category = verify::Category::named(row_verdict.category);
    verdict.feedback = row_verdict.feedback;
    verdict.policy = row_verdict.policy;
    report.verdicts.emplace_back(row_verdict.iteration, std::move(verdict));
  }
  return report;
}

} // namespace ralph::cli
