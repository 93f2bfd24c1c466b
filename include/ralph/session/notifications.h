#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/event.h"
#include "ralph/session/environment.h"
#include "ralph/session/report.h"
#include "ralph/session/runtime.h"

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::session {

// Every `[[notify]]` entry's secret_env is set in `env`: otherwise a config error naming the
// entry's file and line and the variable.
Result<void> check_notify_targets(const std::vector<NotifyTarget>& targets, const Environment& env);

// Sends `event` to every entry of `targets` that wants it, through the runtime's dispatcher
// (never waits). `fields` is the event's JSON object; "event" and "time" are added, and every
// string in it is redacted. `about` names it in warnings ("session 2026…", "batch b1").
void post_notification(Runtime& runtime, const std::vector<NotifyTarget>& targets,
                       NotifyEvent event, const nlohmann::json& fields, const std::string& about);

// The batch a session is a goal of, named in its notifications.
struct BatchPlace {
  std::string batch; // the batch's id; empty: the session is no goal of a batch
  std::string goal;  // the goal's id in it
};

// The notifications of one session: a budget_warning for each budget warning it shows, and its
// end (completed, failed, ...) once it is over. Events come from the session's thread.
class SessionNotifier final : public EventSink {
public:
  // Nothing is sent when the configuration has no `[[notify]]` entry.
  SessionNotifier(Runtime& runtime, const Config& config, std::string session_id, std::string goal,
                  std::filesystem::path workspace, BatchPlace batch);
  void on_event(const Event& event) override;
  // The session ended as `report` says: its status's event, when that is one a person waits for.
  void ended(const SessionReport& report);

private:
  nlohmann::json fields() const;

  Runtime& m_runtime;
  const std::vector<NotifyTarget>& m_targets;
  std::string m_session_id;
  std::string m_goal;
  std::filesystem::path m_workspace;
  BatchPlace m_batch;
};

} // namespace ralph::session
