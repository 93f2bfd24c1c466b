#include "ralph/session/notifications.h"

#include "ralph/core/time.h"
#include "ralph/notify/dispatcher.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <optional>

namespace ralph::session {
namespace {

// The event a session's end is notified as; none for a session still active.
std::optional<NotifyEvent> end_event(Status status) {
  switch (status) {
  case Status::completed:
    return NotifyEvent::completed;
  case Status::failed:
    return NotifyEvent::failed;
  case Status::blocked:
    return NotifyEvent::blocked;
  case Status::stalled:
    return NotifyEvent::stalled;
  case Status::budget_exhausted:
    return NotifyEvent::budget_exhausted;
  case Status::interrupted:
    return NotifyEvent::interrupted;
  case Status::active:
    break;
  }
  return std::nullopt;
}

bool any_wants(const std::vector<NotifyTarget>& targets, NotifyEvent event) {
  return std::any_of(targets.begin(), targets.end(),
                     [event](const NotifyTarget& target) { return target.wants(event); });
}

// As the result object (report_json) has it.
nlohmann::json usage_json(const Usage& usage) {
  nlohmann::json out = {{"input_tokens", usage.input_tokens},
                        {"output_tokens", usage.output_tokens}};
  if (usage.estimated) {
    out["estimated"] = true;
  }
  return out;
}

} // namespace

Result<void> check_notify_targets(const std::vector<NotifyTarget>& targets,
                                  const Environment& env) {
  for (const NotifyTarget& target : targets) {
    if (target.secret_env.empty()) {
      continue;
    }
    if (const auto secret = env.get(target.secret_env); !secret || secret->empty()) {
      Error error{.kind = ErrorKind::config,
                  .message = fmt::format("{}: notify.secret_env: {} is not set (it holds the "
                                         "webhook's signing key)",
                                         target.origin, target.secret_env)};
      return tl::unexpected(std::move(error));
    }
  }
  return {};
}

void post_notification(Runtime& runtime, const std::vector<NotifyTarget>& targets,
                       NotifyEvent event, const nlohmann::json& fields, const std::string& about) {
  if (!any_wants(targets, event)) {
    return;
  }
  const auto now = std::chrono::system_clock::now();
  nlohmann::json body = {{"event", to_string(event)}, {"time", iso8601_utc(now)}};
  body.update(fields);
  runtime.redactor().redact_values(body);
  const auto timestamp =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const notify::Notification notification = notify::make_notification(
      event, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), timestamp, about);
  for (const NotifyTarget& target : targets) {
    if (!target.wants(event)) {
      continue;
    }
    // Read when sent, never stored; checked (check_notify_targets) before anything ran, and
    // never sent unsigned to a receiver that expects a signature.
    std::string secret;
    if (!target.secret_env.empty()) {
      secret = runtime.environment().get(target.secret_env).value_or("");
      if (secret.empty()) {
        continue;
      }
    }
    runtime.notifications().post(target, std::move(secret), notification);
  }
}

SessionNotifier::SessionNotifier(Runtime& runtime, const Config& config, std::string session_id,
                                 std::string goal, std::filesystem::path workspace,
                                 BatchPlace batch)
    : m_runtime(runtime), m_targets(config.notify), m_session_id(std::move(session_id)),
      m_goal(std::move(goal)), m_workspace(std::move(workspace)), m_batch(std::move(batch)) {}

nlohmann::json SessionNotifier::fields() const {
  nlohmann::json out = {
      {"session", m_session_id}, {"goal", m_goal}, {"workspace", m_workspace.string()}};
  if (!m_batch.batch.empty()) {
    out["batch"] = {{"id", m_batch.batch}, {"goal", m_batch.goal}};
  }
  return out;
}

void SessionNotifier::on_event(const Event& event) {
  const auto* warning = event.get<event::BudgetWarning>();
  if (warning == nullptr || !any_wants(m_targets, NotifyEvent::budget_warning)) {
    return;
  }
  nlohmann::json out = fields();
  out["budget"] = {{"kind", to_string(warning->budget)},
                   {"percent", warning->percent},
                   {"used", warning->used},
                   {"limit", warning->limit}};
  out["attempt"] = event.iteration;
  post_notification(m_runtime, m_targets, NotifyEvent::budget_warning, out,
                    "session " + m_session_id);
}

void SessionNotifier::ended(const SessionReport& report) {
  const auto event = end_event(report.status);
  if (!event || !any_wants(m_targets, *event)) {
    return;
  }
  nlohmann::json out = fields();
  out["status"] = to_string(report.status);
  out["reason"] = report.reason;
  out["verified"] = report.verified;
  out["attempts"] = report.iterations;
  out["usage"] = usage_json(report.usage);
  out["cost_usd"] = report.cost_usd ? nlohmann::json(*report.cost_usd) : nlohmann::json(nullptr);
  out["duration_ms"] = report.duration_ms;
  post_notification(m_runtime, m_targets, *event, out, "session " + m_session_id);
}

} // namespace ralph::session
