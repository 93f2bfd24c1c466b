#include "ralph/session/session.h"

#include "document_run.h"

#include "ralph/core/host_name.h"
#include "ralph/core/ids.h"
#include "ralph/core/redacting_sink.h"
#include "ralph/core/try.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/loop/session_resume.h"
#include "ralph/loop/store_journal.h"
#include "ralph/session/agents.h"
#include "ralph/session/record.h"
#include "ralph/session/settings.h"
#include "ralph/session/verifiers.h"
#include "ralph/store/event_log.h"
#include "ralph/store/trace_writer.h"

#include <unistd.h>

namespace ralph::session {
namespace {

// Sends each event to every sink, in order.
class Fanout final : public EventSink {
public:
  void add(EventSink& sink) { m_sinks.push_back(&sink); }
  void on_event(const Event& event) override {
    for (EventSink* sink : m_sinks) {
      sink->on_event(event);
    }
  }

private:
  std::vector<EventSink*> m_sinks;
};

// Whether the session tells `[[notify]]` about itself: a run a person started and waits for, not
// a chat's turn, a heartbeat's tick or one attempt of a best-of-N run.
bool notifies(const SessionRequest& request) {
  return request.kind == store::SessionKind::run && request.parent_id.empty() &&
         !request.config.notify.empty();
}

} // namespace

// Declared in the order they point at each other: each part is destroyed before what it uses.
struct Session::Parts {
  std::unique_ptr<engine::BlockingIo> own_io;
  engine::Io* io = nullptr;
  std::unique_ptr<store::SessionStore> own_store;
  store::SessionStore* store = nullptr;
  std::unique_ptr<ModelProviders> models;
  std::optional<loop::ResumedRun> resumed;
  std::optional<verify::ProtectedSnapshot> baseline; // the recorded one, when resuming
  BuiltinAgent builtin;
  std::unique_ptr<agent::Agent> external;
  std::unique_ptr<DocumentRun> document;
  agent::Agent* agent = nullptr;
  VerifierSetup verifiers;
  bool ran = false;
};

Session::Session(Runtime& runtime, SessionRequest request, const Hosting& hosting,
                 const CancelToken& cancel)
    : m_runtime(runtime), m_request(std::move(request)), m_cancel(cancel),
      m_parts(std::make_unique<Parts>()) {
  Parts& parts = *m_parts;
  if (hosting.io == nullptr) {
    parts.own_io = std::make_unique<engine::BlockingIo>();
  }
  parts.io = hosting.io != nullptr ? hosting.io : parts.own_io.get();
  parts.store = hosting.store;
  parts.models = std::make_unique<ModelProviders>(m_request.config, *parts.io, runtime);
}

Session::~Session() = default;

const std::vector<std::string>& Session::warnings() const {
  return m_parts->verifiers.warnings;
}

bool Session::streams_text() const {
  return m_parts->document == nullptr;
}

const docqa::QaChecker* Session::qa_checker() const {
  return m_parts->document ? m_parts->document->qa_checker() : nullptr;
}

Result<std::unique_ptr<Session>> Session::prepare(Runtime& runtime, SessionRequest request,
                                                  const Hosting& hosting,
                                                  const CancelToken& cancel) {
  const std::optional<Model> given_model = hosting.model;
  std::unique_ptr<Session> session(new Session(runtime, std::move(request), hosting, cancel));
  Parts& parts = *session->m_parts;
  Config& config = session->m_request.config;
  const std::filesystem::path& workspace = session->m_request.workspace;
  tools::ProcessRunner& runner = parts.io->runner();
  if (parts.store == nullptr) {
    TRY_ASSIGN(parts.own_store, open_store(config, workspace));
    parts.store = parts.own_store.get();
  }
  if (const auto& record = session->m_request.resume) {
    session->m_id = record->session.id;
    TRY_ASSIGN(parts.resumed, loop::resume_from_record(*record));
    TRY_ASSIGN(parts.baseline, baseline_from_row(record->session));
  } else {
    session->m_id =
        session->m_request.session_id.empty() ? new_session_id() : session->m_request.session_id;
  }
  const Redactor& redactor = runtime.redactor();
  if (notifies(session->m_request)) {
    TRY(check_notify_targets(config.notify, runtime.environment()));
  }

  if (config.document.mode != DocumentMode::none) {
    TRY(check_prices(config));
    TRY_ASSIGN(parts.document,
               DocumentRun::prepare(config, workspace, session->m_request.goal, *parts.models,
                                    runner, cancel, parts.baseline, redactor));
    parts.agent = &parts.document->agent();
    parts.verifiers = parts.document->take_verifiers();
    return session;
  }
  if (uses_external_agent(config)) {
    TRY(check_prices(config));
    if (config.judge.on_agent_model) {
      return fail(ErrorKind::config, "judge.model: an external agent's model cannot judge; give "
                                     "--judge PROVIDER/MODEL");
    }
    TRY_ASSIGN(parts.external, make_external_agent(config, workspace, runner, session->m_id));
    TRY_ASSIGN(parts.verifiers, build_verifiers(config, workspace, runner, *parts.models,
                                                parts.baseline, true, redactor));
    parts.agent = parts.external.get();
    return session;
  }
  Model model;
  if (given_model) {
    model = *given_model;
  } else {
    TRY_ASSIGN(model, parts.models->make(config.model));
  }
  TRY(check_prices(config));
  TRY_ASSIGN(parts.verifiers, build_verifiers(config, workspace, runner, *parts.models,
                                              parts.baseline, true, redactor));
  TRY_ASSIGN(McpConnections mcp, connect_mcp_servers(config, workspace, *parts.io, runtime));
  parts.verifiers.warnings.insert(parts.verifiers.warnings.end(), mcp.warnings.begin(),
                                  mcp.warnings.end());
  parts.builtin = make_builtin_agent(config, model, runner, workspace, cancel,
                                     parts.verifiers.rules, std::move(mcp));
  parts.agent = parts.builtin.agent.get();
  return session;
}

Result<SessionReport> Session::run(EventSink& shown_to) {
  Parts& parts = *m_parts;
  if (parts.ran) {
    return fail(ErrorKind::internal, "a session runs once");
  }
  parts.ran = true;
  const Config& config = m_request.config;
  const Outputs& outputs = m_request.outputs;
  const Redactor& redactor = m_runtime.redactor();
  Fanout shown;
  shown.add(shown_to);
  // Everything shown passes the redactor as values, streamed text across its deltas.
  RedactingSink events(shown, redactor);
  std::unique_ptr<store::EventLog> event_log;
  if (!outputs.events_file.empty()) {
    // Events reach it through `events`, redacted already.
    TRY_ASSIGN(event_log,
               store::EventLog::open(outputs.events_file, m_id, Redactor(), outputs.append_events));
    shown.add(*event_log);
  }
  std::optional<SessionNotifier> notifier;
  if (notifies(m_request)) {
    // After the redactor, as every sink.
    notifier.emplace(m_runtime, config, m_id, m_request.goal, m_request.workspace, m_request.batch);
    shown.add(*notifier);
  }
  std::unique_ptr<store::TraceWriter> traces;
  if (!outputs.trace_dir.empty()) {
    traces = std::make_unique<store::TraceWriter>(outputs.trace_dir);
  }

  // The record: a new session, or the one being resumed, now owned by this process.
  std::unique_ptr<loop::StoreJournal> journal;
  std::filesystem::path output_dir;
  if (parts.store != nullptr) {
    store::SessionRow row;
    if (m_request.resume) {
      row = m_request.resume->session;
      row.status = Status::active;
      row.owner_pid = getpid();
      row.owner_host = host_name();
      row.config_json = redactor.redact_json(config_to_json(config));
      TRY(parts.store->update_session(row));
    } else {
      row = new_session_row(m_id, m_request.goal, m_request.workspace, config, redactor,
                            parts.verifiers.baseline, parts.io->clock().wall_now());
      row.kind = m_request.kind;
      row.parent_id = m_request.parent_id;
      TRY(parts.store->create_session(row));
    }
    journal = std::make_unique<loop::StoreJournal>(*parts.store, std::move(row), redactor,
                                                   traces.get(), events);
    output_dir = session_outputs_dir(config, m_request.workspace, m_id);
  }

  loop::OuterLoop outer(*parts.agent, std::move(parts.verifiers.entries),
                        loop::LoopOptions{.goal = m_request.goal,
                                          .workspace = m_request.workspace,
                                          .loop = config.loop,
                                          .budget = config.budget,
                                          .prices = config.prices,
                                          .evidence = config.evidence,
                                          .rules = std::move(parts.verifiers.rules),
                                          .output_dir = std::move(output_dir)},
                        parts.io->clock(), journal.get());
  std::vector<Message> conversation;
  loop::LoopState state;
  if (parts.resumed) {
    conversation = std::move(parts.resumed->conversation);
    state = std::move(parts.resumed->state);
  } else {
    conversation.push_back(Message{.role = Role::user, .content = m_request.goal});
  }
  const loop::LoopResult result = outer.run(conversation, m_cancel, events, state);
  events.flush();

  SessionReport report = make_report(m_id, result, redactor);
  if (journal && journal->failure()) {
    Error failure = *journal->failure();
    failure.message = redactor.redact(failure.message);
    report.record_failure = std::move(failure);
  }
  if (event_log) {
    report.events_error = event_log->error();
  }
  if (notifier) {
    notifier->ended(report);
  }
  return report;
}

Result<SessionReport> run_goal(Runtime& runtime, SessionRequest request, const Hosting& hosting,
                               EventSink& events, const CancelToken& cancel) {
  TRY_ASSIGN(auto session, Session::prepare(runtime, std::move(request), hosting, cancel));
  return session->run(events);
}

} // namespace ralph::session
