#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/event.h"
#include "ralph/engine/io.h"
#include "ralph/session/models.h"
#include "ralph/session/notifications.h"
#include "ralph/session/report.h"
#include "ralph/session/runtime.h"
#include "ralph/store/session_store.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ralph::docqa {
class QaChecker;
}

namespace ralph::session {

// Files a session writes besides its record.
struct Outputs {
  std::filesystem::path events_file; // NDJSON of every event; empty: none
  bool append_events = false;        // add to the file instead of replacing it
  std::filesystem::path trace_dir;   // iter-XX.json after each attempt; empty: none
};

// One goal, as every front door states it (argv, a goals-file line, a request body): what to do,
// where, with which configuration (resolved once; nothing below reads settings again), and what
// it goes on from.
struct SessionRequest {
  std::string goal;                // for a document session: the question or task
  std::filesystem::path workspace; // canonical
  Config config;                   // `config.document` set: a document session (qa, task)
  Outputs outputs;
  // Go on from this record (its id, attempts, budgets spent) instead of starting a new session.
  std::optional<store::SessionRecord> resume;
  std::string session_id; // a new session's id; empty: a new one is made
  store::SessionKind kind = store::SessionKind::run;
  std::string parent_id; // a chat's goal, a best-of-N attempt
  BatchPlace batch;      // the batch it is a goal of, named in its notifications
};

// Where a session runs and what it shares with the other sessions of its process.
struct Hosting {
  engine::Io* io = nullptr;             // null: blocking I/O of its own (one session per thread)
  store::SessionStore* store = nullptr; // null: the store its configuration names, opened for it
  // The agent's model served by this provider instead of the one `config.model` names (a
  // scripted stand-in, a library user's own provider); it must outlive the session.
  std::optional<Model> model;
};

// One session made ready: its agent (the built-in one, an agent CLI, or a document's), its
// verifiers and its record. Runs once; the runtime, the hosting's io and store must outlive it.
class Session {
public:
  // Configuration mistakes are errors here, before anything runs or is recorded: an unknown agent,
  // a model or judge without its key, a cost budget without prices, a bad verifier setting, an
  // unreadable document, a `[[notify]]` secret_env not set. A cancel of `cancel` stops the run (it
  // ends `interrupted`).
  static Result<std::unique_ptr<Session>> prepare(Runtime& runtime, SessionRequest request,
                                                  const Hosting& hosting,
                                                  const CancelToken& cancel);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& id() const { return m_id; }
  const SessionRequest& request() const { return m_request; }
  const Config& config() const { return m_request.config; }
  // For the person running it: a judge of the agent's own family, a --protect that matches nothing.
  const std::vector<std::string>& warnings() const;
  // False for document sessions: their answer is shown whole, not streamed.
  bool streams_text() const;
  // A QA session's hard checks (where each quote occurs); null for other sessions.
  const docqa::QaChecker* qa_checker() const;

  // Runs the outer loop to its end: records it, writes the outputs, and shows every event,
  // redacted, on `events` (called from the session's thread). A session of kind `run` that is
  // no part of another (no parent) sends the configuration's `[[notify]]` notifications: its
  // budget warnings and its end (session/notifications.h). An error is what kept it from
  // starting (the events file, the record); everything after is in the report.
  Result<SessionReport> run(EventSink& events);

private:
  struct Parts;
  Session(Runtime& runtime, SessionRequest request, const Hosting& hosting,
          const CancelToken& cancel);

  Runtime& m_runtime;
  SessionRequest m_request;
  CancelToken m_cancel;
  std::string m_id;
  std::unique_ptr<Parts> m_parts;
};

// prepare() and run() in one call: `ralph run`, a request to run a goal.
Result<SessionReport> run_goal(Runtime& runtime, SessionRequest request, const Hosting& hosting,
                               EventSink& events, const CancelToken& cancel);

} // namespace ralph::session
