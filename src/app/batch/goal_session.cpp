#include "app/batch/goal_session.h"

#include "ralph/core/try.h"
#include "ralph/session/session.h"
#include "ralph/session/settings.h"

#include <fmt/format.h>

#include <exception>

namespace ralph::app {
namespace {

Result<session::SessionReport> run_goal(engine::Io& io, const GoalLaunch& launch) {
  session::SessionRequest request{.goal = launch.goal->goal,
                                  .workspace = launch.workspace,
                                  .config = launch.goal->config,
                                  .session_id = launch.session_id,
                                  .batch = {.batch = launch.batch, .goal = launch.goal->id}};
  if (launch.resume) {
    TRY_ASSIGN(auto record, launch.store->load(launch.session_id));
    if (record) {
      // Its recorded configuration, the batch's flags and the goal's keys over it.
      TRY_ASSIGN(request.config, session::recorded_settings(record->session, *launch.flags));
      apply_settings(request.config, launch.goal->settings);
      // Not recorded: notifications go where this process's configuration says.
      request.config.notify = launch.goal->config.notify;
      request.resume = std::move(*record);
    }
  }
  TRY_ASSIGN(auto session,
             session::Session::prepare(*launch.runtime, std::move(request),
                                       {.io = &io, .store = launch.store}, *launch.parent));
  TRY_ASSIGN(session::SessionReport report, session->run(*launch.events));
  if (report.record_failure && !report.error) {
    report.error = report.record_failure;
  }
  return report;
}

session::SessionReport failed_report(const GoalLaunch& launch, Error error) {
  session::SessionReport report;
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

session::SessionReport run_batch_goal(engine::Io& io, const GoalLaunch& launch) {
  try {
    auto report = run_goal(io, launch);
    if (!report) {
      Error error = report.error();
      error.message = launch.runtime->redactor().redact(error.message);
      auto failed = failed_report(launch, std::move(error));
      // It never ran, so its session told no one: the person waiting for it is told here.
      session::SessionNotifier(*launch.runtime, launch.goal->config, launch.session_id,
                               launch.goal->goal, launch.workspace,
                               {.batch = launch.batch, .goal = launch.goal->id})
          .ended(failed);
      return failed;
    }
    return std::move(*report);
  } catch (const std::exception& e) {
    // One goal's programmer error must not take the other goals' process down with it.
    return failed_report(launch, Error{.kind = ErrorKind::internal,
                                       .message = fmt::format("internal error: {}", e.what())});
  }
}

} // namespace ralph::app
