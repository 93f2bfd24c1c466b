#include "cli/run_loop.h"

#include "cli/terminal_view.h"

#include "ralph/core/host_name.h"
#include "ralph/core/ids.h"
#include "ralph/core/redacting_sink.h"
#include "ralph/core/try.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/loop/store_journal.h"
#include "ralph/store/event_log.h"
#include "ralph/store/trace_writer.h"

#include <fmt/format.h>

#include <memory>
#include <unistd.h>
#include <vector>

namespace ralph::cli {
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

loop::LoopOptions loop_options(RunContext& context, const std::string& session_id,
                               std::vector<verify::JudgeRulesFile> rules) {
  const Config& config = context.config();
  std::filesystem::path output_dir;
  if (context.session().store != nullptr) {
    output_dir = session_outputs_dir(config, context.workspace(), session_id);
  }
  return loop::LoopOptions{.goal = context.args().goal,
                           .workspace = context.workspace(),
                           .loop = config.loop,
                           .budget = config.budget,
                           .prices = config.prices,
                           .evidence = config.evidence,
                           .rules = std::move(rules),
                           .output_dir = std::move(output_dir)};
}

// The session's row, created (or, when resuming, taken over by this process) before the run.
Result<store::SessionRow> claim_session(RunContext& context, const std::string& id,
                                        const Redactor& redactor,
                                        const verify::ProtectedSnapshot& baseline) {
  SessionContext& session = context.session();
  if (!session.existing) {
    store::SessionRow row = new_session_row(id, context.args().goal, context.workspace(),
                                            context.config(), redactor, baseline);
    row.kind = session.kind;
    row.parent_id = session.parent_id;
    TRY(session.store->create_session(row));
    return row;
  }
  store::SessionRow row = *session.existing;
  row.status = Status::active;
  row.owner_pid = getpid();
  row.owner_host = host_name();
  row.config_json = redactor.redact_json(config_to_json(context.config()));
  TRY(session.store->update_session(row));
  return row;
}

} // namespace

Result<SessionRun> run_session(RunContext& context, LoopRun& run, EventSink& shown_to) {
  const RunArgs& args = context.args();
  SessionContext& session = context.session();
  const std::string session_id = session.existing         ? session.existing->id
                                 : run.session_id.empty() ? new_session_id()
                                                          : run.session_id;
  const Redactor redactor = run_redactor();
  Fanout shown;
  shown.add(shown_to);
  // Everything shown passes the redactor as values, streamed text across its deltas.
  RedactingSink events(shown, redactor);
  std::unique_ptr<store::EventLog> event_log;
  if (!args.events_file.empty()) {
    // Events reach it through `events`, redacted already.
    TRY_ASSIGN(event_log,
               store::EventLog::open(args.events_file, session_id, Redactor(), args.append_events));
    shown.add(*event_log);
  }

  // The record: a new session, or the one being resumed, now owned by this process.
  std::unique_ptr<store::TraceWriter> traces;
  if (!args.out_dir.empty()) {
    traces = std::make_unique<store::TraceWriter>(args.out_dir);
  }
  std::unique_ptr<loop::StoreJournal> journal;
  if (session.store != nullptr) {
    TRY_ASSIGN(store::SessionRow row,
               claim_session(context, session_id, redactor, run.verifiers.baseline));
    journal = std::make_unique<loop::StoreJournal>(*session.store, std::move(row), redactor,
                                                   traces.get(), events);
  }

  loop::OuterLoop outer(run.agent, std::move(run.verifiers.entries),
                        loop_options(context, session_id, std::move(run.verifiers.rules)),
                        context.clock(), journal.get());
  std::vector<Message> conversation;
  loop::LoopState state;
  if (session.resumed) {
    conversation = std::move(session.resumed->conversation);
    state = std::move(session.resumed->state);
  } else {
    conversation.push_back(Message{.role = Role::user, .content = args.goal});
  }
  const loop::LoopResult result = outer.run(conversation, context.cancel(), events, state);
  events.flush();

  SessionRun out{.report = make_report(session_id, result, redactor)};
  if (journal && journal->failure()) {
    Error failure = *journal->failure();
    failure.message = redactor.redact(failure.message);
    out.record_failure = std::move(failure);
  }
  if (event_log) {
    out.events_error = event_log->error();
  }
  return out;
}

Result<int> run_loop(RunContext& context, const std::string& banner, LoopRun& run) {
  const RunArgs& args = context.args();
  TerminalView view(stdout, stderr,
                    {.stream_text = !args.json && run.stream_text,
                     .progress = !args.quiet,
                     .color = TerminalView::color_wanted(stderr),
                     .live = TerminalView::live_wanted(stderr),
                     .progress_interval = std::chrono::duration_cast<std::chrono::milliseconds>(
                         context.config().display.progress_interval)});
  const Redactor redactor = run_redactor();
  view.note(redactor.redact(banner));
  for (const auto& warning : run.verifiers.warnings) {
    view.note("warning: " + redactor.redact(warning));
  }
  for (const auto& name : redactor.too_short()) {
    view.note(fmt::format("warning: {} is shorter than {} characters: it cannot be told from "
                          "ordinary text and is not redacted",
                          name, k_min_secret_bytes));
  }
  TRY_ASSIGN(const SessionRun ran, run_session(context, run, view));
  const RunReport& report = ran.report;

  // Each error is said once: as it happened (the view's error line), or in the summary line, or,
  // when --quiet leaves both out, here.
  bool error_said = false;
  if (report.status == Status::failed && report.error) {
    error_said = view.error_shown(report.error->message) || view.error_shown(report.reason);
    if (args.quiet) {
      std::fprintf(stderr, "ralph: error: %s\n", report.error->message.c_str());
    }
  } else if (report.status == Status::interrupted && args.quiet) {
    std::fprintf(stderr, "ralph: interrupted: %s\n", report.reason.c_str());
  }
  if (ran.record_failure) {
    std::fprintf(stderr, "ralph: error: the session record is incomplete: %s\n",
                 ran.record_failure->message.c_str());
  }
  if (!ran.events_error.empty()) {
    std::fprintf(stderr, "ralph: warning: %s\n", ran.events_error.c_str());
  }
  if (args.json) {
    print_json_report(stdout, report);
  } else if (run.print_answer) {
    run.print_answer(stdout, report);
  } else {
    print_answer(stdout, view, report);
  }
  view.note(summary_line(report, !error_said));
  return exit_code(report.status);
}

} // namespace ralph::cli
