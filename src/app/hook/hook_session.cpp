#include "app/hook/hook_session.h"

#include "ralph/core/json.h"
#include "ralph/core/message_json.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"
#include "ralph/loop/records.h"
#include "ralph/session/record.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <limits>

namespace ralph::app {
namespace {

using std::chrono::system_clock;

std::int64_t epoch_ms(system_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

// The round is kept beside the protected files' baseline, the row's other fixed state.
HookRound read_round(const store::SessionRow& row) {
  HookRound round;
  const auto parsed = parse_json(row.baseline_json, "hook session state");
  if (!parsed || !parsed->is_object() || !parsed->contains("hook")) {
    return round;
  }
  const nlohmann::json& hook = (*parsed)["hook"];
  round.first_iteration =
      int_member_or(hook, "round_first_iteration", 1, 1, std::numeric_limits<int>::max());
  round.started = system_clock::time_point(
      std::chrono::milliseconds(int_member(hook, "round_started_ms").value_or(0)));
  return round;
}

void write_round(store::SessionRow& row, const StopRequest& request, const HookRound& round) {
  nlohmann::json state =
      parse_json(row.baseline_json, "hook session state").value_or(nlohmann::json::object());
  if (!state.is_object()) {
    state = nlohmann::json::object();
  }
  state["hook"] = {{"agent", request.agent},
                   {"agent_session_id", request.agent_session},
                   {"round_first_iteration", round.first_iteration},
                   {"round_started_ms", epoch_ms(round.started)}};
  row.baseline_json = state.dump();
}

// Letters, digits, '-', '_' and '.' kept, others replaced: the text names a folder.
void append_kept(std::string& id, std::string_view text) {
  for (const char c : text) {
    const bool kept =
        std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
    id += kept ? c : '_';
  }
}

} // namespace

std::string hook_session_id(std::string_view agent, std::string_view agent_session_id) {
  std::string id;
  append_kept(id, agent);
  id += '-';
  append_kept(id, agent_session_id.substr(0, 96));
  return id;
}

Result<HookSession> HookSession::begin(store::SessionStore& store,
                                       std::optional<store::SessionRow> row,
                                       const StopRequest& request, const std::string& id,
                                       const verify::ProtectedSnapshot& baseline,
                                       const Redactor& redactor, const Clock& clock) {
  const system_clock::time_point now = clock.wall_now();
  HookRound round{.first_iteration = 1, .started = now};
  if (!row) {
    const std::string goal =
        request.prompt.empty()
            ? fmt::format("(the task of {} session {})", request.agent, request.agent_session)
            : request.prompt;
    row = session::new_session_row(id, goal, request.workspace, request.config, redactor, baseline,
                                   now);
    row->model = fmt::format("hook/{}", request.agent);
    row->owner_pid = 0; // no process runs it between the agent's stops
    row->owner_host.clear();
    write_round(*row, request, round);
    TRY(store.create_session(*row));
  } else {
    round = read_round(*row);
    // The agent stopped after the last call; a stop that follows no hook's block comes after a
    // new prompt of the person: a new round with its own budgets.
    if (row->status != Status::active && !request.follows_block) {
      round = HookRound{.first_iteration = row->iterations + 1, .started = now};
      write_round(*row, request, round);
    }
    row->status = Status::active;
    row->reason.clear();
    row->config_json = redactor.redact_json(config_to_json(request.config));
  }
  row->iterations += 1;
  row->updated_at = iso8601_utc(now);
  store::AttemptRow attempt;
  attempt.session_id = row->id;
  attempt.iteration = row->iterations;
  attempt.started_at = row->updated_at;
  TRY(store.save_attempt(attempt));
  TRY(store.update_session(*row));
  return HookSession(store, std::move(*row), round, redactor.redact(request.answer),
                     attempt.started_at, redactor, clock);
}

std::chrono::milliseconds HookSession::round_elapsed() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(m_clock->wall_now() -
                                                               m_round.started);
}

Result<void> HookSession::finish(const std::vector<verify::Verdict>& verdicts, Status status,
                                 bool verified, const std::string& reason,
                                 const std::string& feedback) {
  const Redactor& redactor = m_redactor;
  const auto now = m_clock->wall_now();
  store::AttemptRow attempt;
  attempt.session_id = m_row.id;
  attempt.iteration = m_row.iterations;
  attempt.finished = true;
  attempt.started_at = m_started_at;
  attempt.finished_at = iso8601_utc(now);
  const Message answer{.role = Role::assistant, .content = m_answer};
  attempt.messages_json = messages_to_json(std::span<const Message>(&answer, 1));
  attempt.answer = m_answer;
  attempt.stop = "answered";
  attempt.verified = true;
  attempt.passed = status == Status::completed;
  attempt.feedback = redactor.redact(feedback);
  if (const auto started = parse_iso8601_utc(m_started_at)) {
    attempt.duration_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - *started).count();
  }
  std::vector<store::VerdictRow> rows;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    rows.push_back(loop::verdict_row(verdicts[i], m_row.id, m_row.iterations,
                                     static_cast<int>(i) + 1, redactor));
    m_row.input_tokens += verdicts[i].usage.input_tokens;
    m_row.output_tokens += verdicts[i].usage.output_tokens;
  }
  m_row.status = status;
  m_row.verified = verified;
  m_row.reason = redactor.redact(reason);
  m_row.answer = m_answer;
  m_row.updated_at = attempt.finished_at;
  if (status == Status::completed) {
    m_row.best_iteration = m_row.iterations;
  }
  if (const auto created = parse_iso8601_utc(m_row.created_at)) {
    m_row.elapsed_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - *created).count();
  }
  return m_store->finish_attempt(attempt, rows, m_row);
}

} // namespace ralph::app
