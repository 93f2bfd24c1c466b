#include "cli/hook_session.h"

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

namespace ralph::cli {
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

void write_round(store::SessionRow& row, const HookPayload& payload, const HookRound& round) {
  nlohmann::json state =
      parse_json(row.baseline_json, "hook session state").value_or(nlohmann::json::object());
  if (!state.is_object()) {
    state = nlohmann::json::object();
  }
  state["hook"] = {{"agent", to_string(payload.agent)},
                   {"agent_session_id", payload.session_id},
                   {"round_first_iteration", round.first_iteration},
                   {"round_started_ms", epoch_ms(round.started)}};
  row.baseline_json = state.dump();
}

} // namespace

std::string hook_session_id(HookAgent agent, const std::string& agent_session_id) {
  std::string id = to_string(agent);
  id += '-';
  for (const char c : agent_session_id.substr(0, 96)) {
    const bool kept =
        std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
    id += kept ? c : '_';
  }
  return id;
}

Result<std::optional<store::SessionRow>> HookSession::find(store::SessionStore& store,
                                                           const std::string& id) {
  return store.find_session(id);
}

Result<HookSession> HookSession::begin(store::SessionStore& store,
                                       std::optional<store::SessionRow> row,
                                       const HookPayload& payload, const std::string& id,
                                       const std::filesystem::path& workspace, const Config& config,
                                       const verify::ProtectedSnapshot& baseline,
                                       const Redactor& redactor, system_clock::time_point now) {
  HookRound round{.first_iteration = 1, .started = now};
  if (!row) {
    const std::string goal = payload.prompt.empty()
                                 ? fmt::format("(the task of {} session {})",
                                               to_string(payload.agent), payload.session_id)
                                 : payload.prompt;
    row = session::new_session_row(id, goal, workspace, config, redactor, baseline, now);
    row->model = fmt::format("hook/{}", to_string(payload.agent));
    row->owner_pid = 0; // no process runs it between the agent's stops
    row->owner_host.clear();
    write_round(*row, payload, round);
    TRY(store.create_session(*row));
  } else {
    round = read_round(*row);
    // The agent stopped after the last call; a stop that follows no hook's block comes after a
    // new prompt of the person: a new round with its own budgets.
    if (row->status != Status::active && !payload.stop_hook_active) {
      round = HookRound{.first_iteration = row->iterations + 1, .started = now};
      write_round(*row, payload, round);
    }
    row->status = Status::active;
    row->reason.clear();
    row->config_json = redactor.redact_json(config_to_json(config));
  }
  row->iterations += 1;
  row->updated_at = iso8601_utc(now);
  store::AttemptRow attempt;
  attempt.session_id = row->id;
  attempt.iteration = row->iterations;
  attempt.started_at = row->updated_at;
  TRY(store.save_attempt(attempt));
  TRY(store.update_session(*row));
  return HookSession(store, std::move(*row), round, redactor.redact(payload.answer),
                     attempt.started_at, redactor);
}

std::chrono::milliseconds HookSession::round_elapsed(system_clock::time_point now) const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - m_round.started);
}

Result<void> HookSession::finish(const std::vector<verify::Verdict>& verdicts, Status status,
                                 bool verified, const std::string& reason,
                                 const std::string& feedback) {
  const Redactor& redactor = m_redactor;
  const auto now = system_clock::now();
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

} // namespace ralph::cli
