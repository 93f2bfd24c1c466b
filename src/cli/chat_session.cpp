#include "cli/chat_session.h"

#include "ralph/agent/react_agent.h"
#include "ralph/core/host_name.h"
#include "ralph/core/ids.h"
#include "ralph/core/redacting_sink.h"
#include "ralph/core/text.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"
#include "ralph/loop/session_resume.h"
#include "ralph/loop/store_journal.h"
#include "ralph/session/agents.h"
#include "ralph/session/record.h"
#include "ralph/session/settings.h"
#include "ralph/session/verifiers.h"
#include "ralph/store/session_owner.h"
#include "ralph/store/sqlite_session_store.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/verify/completion_marker.h"
#include "ralph/verify/judge_rules.h"

#include <fmt/format.h>

#include <unistd.h>

namespace ralph::cli {
namespace {

std::string now() {
  return iso8601_utc(std::chrono::system_clock::now());
}

// What a chat's own record says before anything was said in it.
constexpr const char* k_untitled = "(chat)";

loop::BudgetCounters plus(loop::BudgetCounters a, const loop::BudgetCounters& b) {
  a.usage += b.usage;
  a.cost_usd += b.cost_usd;
  a.cost_known = a.cost_known && b.cost_known;
  a.elapsed_ms += b.elapsed_ms;
  return a;
}

// Records the ordinary turns of a chat as attempts of the chat's session, numbered on from the
// attempts before, with the counters of the whole chat. The chat's row and its resume point are
// the chat's to write (ChatSession::save), so the end of a turn's run is not passed on.
class TurnJournal final : public loop::Journal {
public:
  TurnJournal(loop::StoreJournal& inner, int offset, loop::BudgetCounters base)
      : m_inner(inner), m_offset(offset), m_base(base) {}

  // A turn starts from the chat's whole conversation, which the chat's state records: the turn
  // records only what was said to start it, so a long chat's record grows with its length, not
  // with the square of it.
  void attempt_started(int iteration, std::span<const Message> conversation) override {
    m_inner.attempt_started(iteration + m_offset,
                            conversation.empty() ? conversation : conversation.last(1));
  }
  void model_call(int iteration, const agent::ModelCall& call,
                  const loop::BudgetCounters& counters) override {
    m_inner.model_call(iteration + m_offset, call, plus(m_base, counters));
  }
  void tool_call(int iteration, int seq, const verify::ToolRecord& record,
                 std::string_view result) override {
    m_inner.tool_call(iteration + m_offset, seq, record, result);
  }
  void attempt_finished(const loop::AttemptRecord& attempt, std::span<const Message> added,
                        const loop::BudgetCounters& counters, int /*best_iteration*/,
                        const std::optional<loop::ResumePoint>& /*next*/) override {
    loop::AttemptRecord shifted = attempt;
    shifted.iteration += m_offset;
    m_inner.attempt_finished(shifted, added, plus(m_base, counters), 0, std::nullopt);
  }
  void resumed(const loop::ResumePoint& /*next*/) override {}
  void finished(const loop::LoopResult& /*result*/) override {}
  std::optional<Error> failure() const override { return m_inner.failure(); }

private:
  loop::StoreJournal& m_inner;
  int m_offset;
  loop::BudgetCounters m_base;
};

// An ordinary turn is not verified by design: saying so after every answer is noise.
class TurnEvents final : public EventSink {
public:
  explicit TurnEvents(EventSink& next) : m_next(next) {}
  void on_event(const Event& event) override {
    if (event.get<event::VerificationSkipped>() == nullptr) {
      m_next.on_event(event);
    }
  }

private:
  EventSink& m_next;
};

std::string limit_text(double used, double limit, std::string_view unit) {
  return limit > 0 ? fmt::format("{}{} of {}{}", used, unit, limit, unit)
                   : fmt::format("{}{} (no limit)", used, unit);
}

} // namespace

// What /status shows of the goal's latest run.
struct ChatSession::Progress {
  int iteration = 0;
  int max_iterations = 0;
  bool running = false;
  bool verifying = false;
  int verdict_iteration = 0;
  std::vector<event::VerdictGiven> verdicts; // of verdict_iteration
  Usage usage;                               // this run's model calls, the judge's included
  std::int64_t carried_tokens = 0;           // the goal's earlier runs
  std::chrono::steady_clock::time_point started{};
  std::int64_t elapsed_ms = 0; // the goal's time so far, once a run of it ended
};

// Counts the running work's events for /status on their way to the view.
class ChatSession::Tap final : public EventSink {
public:
  Tap(ChatSession& chat, EventSink& next) : m_chat(chat), m_next(next) {}
  void on_event(const Event& event) override {
    {
      const std::scoped_lock lock(m_chat.m_mutex);
      Progress& progress = *m_chat.m_progress;
      if (const auto* started = event.get<event::AttemptStarted>()) {
        progress.iteration = event.iteration;
        progress.max_iterations = started->max_iterations;
        progress.verifying = false;
      } else if (event.get<event::VerifierStarted>() != nullptr) {
        progress.verifying = true;
      } else if (const auto* verdict = event.get<event::VerdictGiven>()) {
        if (progress.verdict_iteration != event.iteration) {
          progress.verdicts.clear();
          progress.verdict_iteration = event.iteration;
        }
        progress.verdicts.push_back(*verdict);
        progress.usage += verdict->usage;
      } else if (const auto* model = event.get<event::ModelFinished>()) {
        progress.usage += model->usage;
      }
    }
    m_next.on_event(event);
  }

private:
  ChatSession& m_chat;
  EventSink& m_next;
};

ChatSession::ChatSession(ChatHost host, TerminalView& view)
    : m_host(std::move(host)),
      m_models(std::make_unique<session::ModelProviders>(m_host.config, m_host.io, m_host.runtime)),
      m_view(view), m_store(m_host.store), m_redactor(m_host.runtime.redactor()),
      m_progress(std::make_unique<Progress>()) {}

ChatSession::~ChatSession() = default;

Result<std::unique_ptr<ChatSession>> ChatSession::open(ChatHost host, TerminalView& view,
                                                       const std::string& resume_id) {
  std::unique_ptr<ChatSession> chat(new ChatSession(std::move(host), view));
  ChatHost& context = chat->m_host;
  if (chat->m_store == nullptr) {
    return fail(ErrorKind::config,
                "store.enabled is false: a chat is a recorded session (its goals pause and "
                "resume from the record); turn the store on to chat");
  }
  const Config& config = context.config;
  if (resume_id.empty()) {
    chat->m_row = session::new_session_row(new_session_id(), k_untitled, context.workspace, config,
                                           chat->m_redactor, {});
    chat->m_row.kind = store::SessionKind::chat;
    chat->m_row.resume_json = chat_state_to_json(chat->m_state);
    // A chat that cannot talk to its agent is not recorded at all.
    TRY(chat->make_agent());
    TRY(chat->m_store->create_session(chat->m_row));
  } else {
    TRY_ASSIGN(const auto found, chat->m_store->find_session(resume_id));
    if (!found) {
      return fail(ErrorKind::usage,
                  fmt::format("--resume {}: no such session in {}", resume_id,
                              session::store_file(config, context.workspace).string()));
    }
    if (found->kind != store::SessionKind::chat) {
      return fail(ErrorKind::usage,
                  fmt::format("--resume {}: a {} session, not a chat (go on with it with ralph "
                              "sessions resume {})",
                              resume_id, to_string(found->kind), resume_id));
    }
    if (store::session_owned(*found)) {
      return fail(ErrorKind::usage, fmt::format("--resume {}: the chat is open in {}", resume_id,
                                                store::owner_text(*found)));
    }
    // The chat goes on with the model, agent and settings it was recorded with, the flags of
    // this command over them, as `sessions resume` does.
    TRY_ASSIGN(context.config, session::recorded_settings(*found, context.flags));
    chat->m_row = *found;
    TRY_ASSIGN(chat->m_state,
               chat_state_from_json(found->resume_json, fmt::format("chat {}", resume_id)));
    // A goal that was running when the chat ended waits for the user: it may have been what
    // ended it.
    if (chat->m_state.goal && chat->m_state.goal->status == Status::active &&
        !chat->m_state.goal->held) {
      chat->m_state.goal->held = true;
      chat->m_state.goal->reason = "the chat ended while it ran";
    }
    TRY(chat->make_agent());
  }
  chat->save();
  return chat;
}

Result<void> ChatSession::make_agent() {
  const Config& config = m_host.config;
  if (session::uses_external_agent(config)) {
    TRY_ASSIGN(m_agent, session::make_external_agent(config, m_host.workspace, m_host.io.runner(),
                                                     m_row.id));
    return {};
  }
  TRY_ASSIGN(m_model, m_models->make(config.model));
  const auto rules = verify::read_judge_rules(
      m_host.workspace, verify::judge_rules_file_names(config.judge.rules_files, false),
      config.judge.rules_chars);
  session::BuiltinAgent made = session::make_builtin_agent(config, *m_model, m_host.io.runner(),
                                                           m_host.workspace, m_host.cancel, rules);
  m_registry = std::move(made.tools);
  m_agent = std::move(made.agent);
  return {};
}

void ChatSession::save() {
  {
    const std::scoped_lock lock(m_mutex);
    if (m_working) {
      return; // the work writes the record when it ends
    }
  }
  write_row();
}

void ChatSession::write_row() {
  std::string state;
  {
    const std::scoped_lock lock(m_mutex);
    state = chat_state_to_json(m_state);
  }
  const std::scoped_lock lock(m_row_mutex);
  m_row.resume_json = m_redactor.redact_json(state);
  m_row.status = Status::active;
  m_row.owner_pid = getpid();
  m_row.owner_host = host_name();
  m_row.updated_at = now();
  if (auto written = m_store->update_session(m_row); !written) {
    m_view.note("warning: the chat's record could not be written: " +
                m_redactor.redact(written.error().message));
  }
}

ChatSession::Working::Working(ChatSession& chat) : m_chat(chat) {
  const std::scoped_lock lock(chat.m_mutex);
  chat.m_working = true;
}

ChatSession::Working::~Working() {
  {
    const std::scoped_lock lock(m_chat.m_mutex);
    m_chat.m_working = false;
  }
  m_chat.write_row();
}

Result<loop::LoopResult> ChatSession::say(const std::string& text, const CancelToken& cancel) {
  const Config& config = m_host.config;
  const Working working(*this);
  // The turn works on its own copy: a /verify meanwhile may record the chat's state.
  std::vector<Message> conversation;
  {
    const std::scoped_lock lock(m_mutex);
    conversation = m_state.conversation;
  }
  conversation.push_back(Message{.role = Role::user, .content = text});
  if (m_row.goal == k_untitled) {
    m_row.goal = m_redactor.redact(first_line(text, 200));
  }
  loop::LoopOptions options{.goal = text,
                            .workspace = m_host.workspace,
                            .loop = config.loop,
                            .budget = config.budget,
                            .prices = config.prices};
  RedactingSink redacted(m_view, m_redactor);
  TurnEvents events(redacted);
  loop::StoreJournal recorded(*m_store, m_row, m_redactor, nullptr, events);
  TurnJournal journal(recorded, m_row.iterations, loop::spent_of(m_row));
  loop::OuterLoop outer(*m_agent, {}, std::move(options), m_host.io.clock(), &journal);
  const loop::LoopResult result = outer.run(conversation, cancel, events);
  redacted.flush();
  {
    const std::scoped_lock lock(m_mutex);
    m_state.conversation = std::move(conversation);
  }
  m_row = recorded.session();
  m_row.answer = m_redactor.redact(result.answer);
  m_row.reason = m_redactor.redact(result.reason);
  if (const auto failure = journal.failure()) {
    return fail(failure->kind, "the chat's record could not be written: " + failure->message);
  }
  return result;
}

void ChatSession::set_goal(const std::string& text) {
  const std::scoped_lock lock(m_mutex);
  ChatGoal goal;
  goal.text = text;
  goal.settings = std::exchange(m_state.next, GoalSettings{});
  m_state.goal = std::move(goal);
  *m_progress = Progress{};
  m_hold = false;
  m_changed = false;
}

ChatGoal* ChatSession::active_goal() {
  return m_state.goal && m_state.goal->status == Status::active ? &*m_state.goal : nullptr;
}

const ChatGoal* ChatSession::active_goal() const {
  return m_state.goal && m_state.goal->status == Status::active ? &*m_state.goal : nullptr;
}

bool ChatSession::goal_held() const {
  const std::scoped_lock lock(m_mutex);
  const ChatGoal* goal = active_goal();
  return goal != nullptr && goal->held;
}

bool ChatSession::request_hold() {
  const std::scoped_lock lock(m_mutex);
  const ChatGoal* goal = active_goal();
  if (goal == nullptr || goal->held) {
    return false;
  }
  m_hold = true;
  return true;
}

bool ChatSession::release_hold() {
  {
    const std::scoped_lock lock(m_mutex);
    ChatGoal* goal = active_goal();
    if (goal == nullptr || !goal->held) {
      return false;
    }
    goal->held = false;
    goal->reason.clear();
    m_hold = false;
  }
  save();
  return true;
}

bool ChatSession::change_settings(const std::function<void(GoalSettings&)>& edit) {
  bool current = false;
  {
    const std::scoped_lock lock(m_mutex);
    ChatGoal* goal = active_goal();
    edit(goal != nullptr ? goal->settings : m_state.next);
    current = goal != nullptr;
    m_changed = current;
  }
  save();
  return current;
}

Result<std::string> ChatSession::add_verify(const std::string& command) {
  const bool current =
      change_settings([&](GoalSettings& settings) { settings.verify_commands.push_back(command); });
  return fmt::format("verifier added {}: command: {}",
                     current ? "to the goal" : "for the next goal", command);
}

Result<std::string> ChatSession::set_judge(const std::string& model) {
  Config probe = m_host.config;
  TRY(set_config_value(probe, "judge.model", model, "/judge"));
  const bool current = change_settings([&](GoalSettings& settings) { settings.judge = model; });
  return fmt::format("the {} is judged by {}", current ? "goal" : "next goal", model);
}

Result<std::string> ChatSession::change_budgets(const std::vector<BudgetChange>& changes) {
  change_settings([&](GoalSettings& settings) {
    settings.budgets.insert(settings.budgets.end(), changes.begin(), changes.end());
  });
  return budgets_text();
}

Result<Config> ChatSession::goal_config(const GoalSettings& settings) const {
  Config config = m_host.config;
  // A goal is verifier-first and every answer of it is verified; as in seed 004, a retry starts
  // from a compact continuation prompt.
  config.evidence.enabled = true;
  config.loop.trigger.mode = TriggerMode::always;
  config.loop.heartbeat = false;
  config.loop.feedback = FeedbackMode::continuation;
  for (const std::string& command : settings.verify_commands) {
    config.verify.commands.push_back(command);
  }
  if (!settings.judge.empty()) {
    TRY(set_config_value(config, "judge.model", settings.judge, "/judge"));
  }
  for (const BudgetChange& change : settings.budgets) {
    TRY(set_config_value(config, change.key, change.value, "/budget"));
  }
  return config;
}

std::string ChatSession::budgets_text() const {
  GoalSettings settings;
  Progress progress;
  {
    const std::scoped_lock lock(m_mutex);
    const ChatGoal* goal = active_goal();
    settings = goal != nullptr ? goal->settings : m_state.next;
    progress = *m_progress;
  }
  const auto config = goal_config(settings);
  if (!config) {
    return "budgets: " + config.error().message;
  }
  const BudgetSettings& budget = config->budget;
  const double seconds =
      progress.running
          ? std::chrono::duration<double>(std::chrono::steady_clock::now() - progress.started)
                .count()
          : static_cast<double>(progress.elapsed_ms) / 1000.0;
  const std::int64_t tokens = progress.carried_tokens + progress.usage.total_tokens();
  return fmt::format(
      "budgets: iterations {} · steps {} per attempt · tokens {} · cost {} · time {}",
      progress.iteration > 0
          ? fmt::format("{} of {}", progress.iteration, config->loop.max_iterations)
          : fmt::format("{}", config->loop.max_iterations),
      config->agent.max_steps,
      limit_text(static_cast<double>(tokens), static_cast<double>(budget.max_tokens), ""),
      budget.max_cost_usd > 0 ? fmt::format("${} limit", budget.max_cost_usd) : "(no limit)",
      limit_text(std::round(seconds), std::chrono::duration<double>(budget.max_time).count(), "s"));
}

std::string ChatSession::status_text() const {
  std::optional<ChatGoal> goal;
  Progress progress;
  {
    const std::scoped_lock lock(m_mutex);
    goal = m_state.goal;
    progress = *m_progress;
  }
  std::string out;
  if (!goal) {
    out += "no goal (/goal TEXT starts one)\n";
  } else {
    out += fmt::format("goal: {}\n", goal->text);
    if (!goal->session_id.empty()) {
      out += fmt::format("session: {}\n", goal->session_id);
    }
    std::string state;
    if (goal->status != Status::active) {
      state = fmt::format("{} · {}", to_string(goal->status), goal->reason);
    } else if (goal->held) {
      state = fmt::format("held · {} (/resume goes on)", goal->reason);
    } else if (progress.running && progress.iteration > 0) {
      state = fmt::format("running · attempt {} of {}{}", progress.iteration,
                          progress.max_iterations, progress.verifying ? " · verifying" : "");
    } else {
      state = "starting";
    }
    out += "state: " + state + "\n";
    const auto& verifiers = goal->settings.verify_commands;
    if (!verifiers.empty() || !goal->settings.judge.empty()) {
      out += "added: ";
      for (const auto& command : verifiers) {
        out += fmt::format("command: {}; ", command);
      }
      if (!goal->settings.judge.empty()) {
        out += fmt::format("judge {}; ", goal->settings.judge);
      }
      out.resize(out.size() - 2);
      out += "\n";
    }
  }
  if (!progress.verdicts.empty()) {
    out += fmt::format("last verdicts (attempt {}):\n", progress.verdict_iteration);
    for (const event::VerdictGiven& verdict : progress.verdicts) {
      const char* mark = verdict.result == verify::Outcome::pass   ? "✓"
                         : verdict.result == verify::Outcome::fail ? "✗"
                                                                   : "!";
      out += fmt::format("  {} {} {}", mark, verdict.verifier, to_string(verdict.result));
      if (!verdict.category.empty()) {
        out += " [" + verdict.category + "]";
      }
      if (verdict.result != verify::Outcome::pass && !verdict.feedback.empty()) {
        out += ": " + first_line(verdict.feedback, 100);
      }
      out += "\n";
    }
  }
  out += budgets_text() + "\n";
  return m_redactor.redact(out);
}

void ChatSession::clear() {
  {
    const std::scoped_lock lock(m_mutex);
    m_state = ChatState{};
    *m_progress = Progress{};
    m_hold = false;
    m_changed = false;
  }
  save();
}

void ChatSession::close(bool interrupted) {
  m_row.status = interrupted ? Status::interrupted : Status::completed;
  m_row.reason = interrupted ? "the chat was stopped by a signal" : "the chat was left";
  {
    const std::scoped_lock lock(m_mutex);
    m_row.resume_json = m_redactor.redact_json(chat_state_to_json(m_state));
  }
  m_row.owner_pid = 0;
  m_row.owner_host.clear();
  m_row.updated_at = now();
  if (auto written = m_store->update_session(m_row); !written) {
    m_view.note("warning: the chat's record could not be written: " +
                m_redactor.redact(written.error().message));
  }
}

Result<loop::LoopResult> ChatSession::run_goal_once(ChatGoal goal, const CancelToken& cancel) {
  TRY_ASSIGN(const Config config, goal_config(goal.settings));
  TRY(session::check_prices(config));
  const std::filesystem::path& workspace = m_host.workspace;

  std::optional<store::SessionRow> row;
  std::optional<loop::ResumedRun> resumed;
  std::optional<verify::ProtectedSnapshot> baseline;
  if (!goal.session_id.empty()) {
    TRY_ASSIGN(auto record, m_store->load(goal.session_id));
    if (!record) {
      return fail(ErrorKind::store,
                  fmt::format("the goal's session {} is missing from the store", goal.session_id));
    }
    TRY_ASSIGN(resumed, loop::resume_from_record(*record));
    TRY_ASSIGN(baseline, session::baseline_from_row(record->session));
    row = record->session;
  }
  TRY_ASSIGN(session::VerifierSetup verifiers,
             session::build_verifiers(config, workspace, m_host.io.runner(), *m_models, baseline,
                                      true, m_redactor));
  for (const auto& warning : verifiers.warnings) {
    m_view.note("warning: " + m_redactor.redact(warning));
  }
  const std::string prompt = verify::goal_prompt(
      goal.text, config.evidence.marker, config.verify.commands, config.evidence.instructions);
  std::vector<Message> conversation;
  loop::LoopState state;
  if (resumed) {
    conversation = std::move(resumed->conversation);
    state = std::move(resumed->state);
    row->status = Status::active;
    row->owner_pid = getpid();
    row->owner_host = host_name();
    row->config_json = m_redactor.redact_json(config_to_json(config));
    TRY(m_store->update_session(*row));
  } else {
    {
      const std::scoped_lock lock(m_mutex);
      conversation = m_state.conversation;
    }
    conversation.push_back(Message{.role = Role::user, .content = prompt});
    row = session::new_session_row(new_session_id(), goal.text, workspace, config, m_redactor,
                                   verifiers.baseline);
    row->kind = store::SessionKind::goal;
    row->parent_id = m_row.id;
    loop::ResumePoint start;
    start.conversation = conversation;
    row->resume_json = m_redactor.redact_json(loop::resume_point_to_json(start));
    TRY(m_store->create_session(*row));
    {
      const std::scoped_lock lock(m_mutex);
      if (m_state.goal) {
        m_state.goal->session_id = row->id;
      }
    }
    write_row();
  }
  {
    const std::scoped_lock lock(m_mutex);
    m_progress->running = true;
    m_progress->started =
        std::chrono::steady_clock::now() - std::chrono::milliseconds(state.spent.elapsed_ms);
    m_progress->usage = Usage{};
    m_progress->carried_tokens = state.spent.usage.total_tokens();
  }

  std::filesystem::path output_dir = session::session_outputs_dir(config, workspace, row->id);
  loop::LoopOptions options{.goal = goal.text,
                            .workspace = workspace,
                            .loop = config.loop,
                            .budget = config.budget,
                            .prices = config.prices,
                            .evidence = config.evidence,
                            .rules = std::move(verifiers.rules),
                            .output_dir = std::move(output_dir),
                            .hold = [this] { return m_hold.load() || m_changed.load(); }};
  RedactingSink redacted(m_view, m_redactor);
  Tap events(*this, redacted);
  loop::StoreJournal journal(*m_store, *row, m_redactor, nullptr, events);
  loop::OuterLoop outer(*m_agent, std::move(verifiers.entries), std::move(options),
                        m_host.io.clock(), &journal);
  const loop::BudgetCounters before = state.spent;
  loop::LoopResult result = outer.run(conversation, cancel, events, state);
  redacted.flush();
  {
    const std::scoped_lock lock(m_mutex);
    m_progress->running = false;
    m_progress->elapsed_ms = result.duration_ms;
  }
  // The chat counts what its goals spent too.
  Usage spent = result.usage;
  spent.input_tokens -= before.usage.input_tokens;
  spent.output_tokens -= before.usage.output_tokens;
  m_row.input_tokens += spent.input_tokens;
  m_row.output_tokens += spent.output_tokens;
  m_row.usage_estimated = m_row.usage_estimated || spent.estimated;
  m_row.cost_usd += result.cost_usd - before.cost_usd;
  m_row.cost_known = m_row.cost_known && result.cost_known;
  if (const auto failure = journal.failure()) {
    return fail(failure->kind, "the goal's record could not be written: " + failure->message);
  }
  return result;
}

Result<loop::LoopResult> ChatSession::work_on_goal(const CancelToken& cancel) {
  const Working working(*this);
  ChatGoal goal;
  {
    const std::scoped_lock lock(m_mutex);
    if (!m_state.goal || m_state.goal->status != Status::active) {
      return fail(ErrorKind::usage, "no goal to work on (/goal TEXT starts one)");
    }
    goal = *m_state.goal;
  }
  loop::LoopResult result;
  while (true) {
    m_changed = false;
    auto ran = run_goal_once(goal, cancel);
    if (!ran) {
      // The goal waits for what is wrong to be fixed (a /judge model without its key, say).
      const std::scoped_lock lock(m_mutex);
      if (m_state.goal) {
        m_state.goal->held = true;
        m_state.goal->reason = "it could not start: " + m_redactor.redact(ran.error().message);
      }
      m_hold = false;
      return fail(ran.error()); // recorded as the work ends
    }
    result = std::move(*ran);
    {
      const std::scoped_lock lock(m_mutex);
      if (m_state.goal) {
        goal.session_id = m_state.goal->session_id;
        goal.settings = m_state.goal->settings;
      }
    }
    if (result.status == Status::interrupted && !cancel.cancelled() && m_changed && !m_hold) {
      m_view.note("  · going on with the changed verifiers and budgets");
      continue;
    }
    break;
  }
  {
    const std::scoped_lock lock(m_mutex);
    if (m_state.goal) {
      ChatGoal& current = *m_state.goal;
      if (result.status == Status::interrupted) {
        current.held = true;
        current.reason = m_redactor.redact(result.reason);
      } else {
        current.status = result.status;
        current.reason = m_redactor.redact(result.reason);
        // The chat goes on knowing what came of the goal.
        m_state.conversation.push_back(
            Message{.role = Role::user, .content = "Goal: " + goal.text});
        m_state.conversation.push_back(Message{.role = Role::assistant, .content = result.answer});
      }
    }
    m_hold = false;
    m_changed = false;
  }
  return result; // recorded as the work ends
}

} // namespace ralph::cli
