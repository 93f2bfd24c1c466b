#include "ralph/session/resume.h"

#include "ralph/core/try.h"
#include "ralph/loop/session_resume.h"
#include "ralph/session/settings.h"
#include "ralph/store/session_owner.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::session {
namespace {

// A limit of 0 is none: lifting a limit raises it.
template <typename T> bool raised(T before, T after) {
  return before != T{} && (after == T{} || after > before);
}

// Whether `now` allows more than the recorded configuration did.
bool raises_a_budget(const Config& recorded, const Config& now) {
  return now.loop.max_iterations > recorded.loop.max_iterations ||
         raised(recorded.budget.max_tokens, now.budget.max_tokens) ||
         raised(recorded.budget.max_cost_usd, now.budget.max_cost_usd) ||
         raised(recorded.budget.max_time, now.budget.max_time);
}

// Why a session of this kind or state does not go on with `sessions resume`; empty when it does.
std::string not_resumable(const store::SessionRow& row) {
  if (store::session_owned(row)) {
    return fmt::format("session {} is running in {}; stop it first", row.id,
                       store::owner_text(row));
  }
  if (row.kind == store::SessionKind::chat) {
    return fmt::format("session {} is a chat: go on with it with ralph chat --resume {}", row.id,
                       row.id);
  }
  if (row.kind == store::SessionKind::best_of) {
    return fmt::format("session {} is a best-of-N run: resume one of its attempts (ralph "
                       "sessions list --json shows them with parent_id {})",
                       row.id, row.id);
  }
  if (row.status == Status::completed) {
    return fmt::format("session {} is already completed", row.id);
  }
  if (row.model.starts_with("hook/")) {
    return fmt::format("session {} is a Stop-hook session of {}: it goes on when that agent "
                       "stops again",
                       row.id, row.model.substr(5));
  }
  return {};
}

} // namespace

Result<store::SessionRow> find_session(store::SessionStore& store, const std::string& id) {
  TRY_ASSIGN(const std::vector<store::SessionRow> sessions, store.list_sessions());
  std::vector<const store::SessionRow*> matches;
  for (const auto& row : sessions) {
    if (row.id == id) {
      return row;
    }
    if (!id.empty() && row.id.starts_with(id)) {
      matches.push_back(&row);
    }
  }
  if (matches.size() == 1) {
    return *matches.front();
  }
  if (matches.empty()) {
    return fail(ErrorKind::usage, fmt::format("no session {} in this workspace (`ralph sessions "
                                              "list` shows them)",
                                              id));
  }
  return fail(ErrorKind::usage,
              fmt::format("{} matches {} sessions; give more of the id", id, matches.size()));
}

Result<store::SessionRecord> load_session(store::SessionStore& store, const std::string& id) {
  TRY_ASSIGN(const store::SessionRow row, find_session(store, id));
  TRY_ASSIGN(std::optional<store::SessionRecord> record, store.load(row.id));
  if (!record) {
    return fail(ErrorKind::usage, fmt::format("session {} was removed", row.id));
  }
  return std::move(*record);
}

Result<ResumePlan> plan_resume(store::SessionRecord record, const std::vector<Setting>& overrides) {
  const store::SessionRow& row = record.session;
  if (std::string why = not_resumable(row); !why.empty()) {
    return fail(ErrorKind::usage, std::move(why));
  }
  TRY_ASSIGN(const Config recorded, recorded_settings(row, {}));
  TRY_ASSIGN(Config config, recorded_settings(row, overrides));
  TRY_ASSIGN(const loop::ResumedRun resumed, loop::resume_from_record(record));
  const bool ended = row.status == Status::budget_exhausted || row.status == Status::stalled;
  const int next = resumed.state.next_iteration;
  const int finished = static_cast<int>(resumed.state.attempts.size());
  if (ended && !raises_a_budget(recorded, config)) {
    return fail(ErrorKind::usage,
                fmt::format("session {} ended {} after {} attempt(s); resume it with "
                            "--max-iterations {} or more (or another budget raised)",
                            row.id, to_string(row.status), finished,
                            std::max(next, config.loop.max_iterations + 1)));
  }
  if (next > config.loop.max_iterations) {
    return fail(ErrorKind::usage, fmt::format("session {} has used {} of {} attempts; resume it "
                                              "with --max-iterations {} or more",
                                              row.id, next - 1, config.loop.max_iterations, next));
  }
  const std::filesystem::path workspace = row.workspace;
  std::error_code ec;
  if (!std::filesystem::is_directory(workspace, ec)) {
    return fail(ErrorKind::usage,
                fmt::format("session {}: its workspace {} is gone", row.id, workspace.string()));
  }
  std::string goal = row.goal;
  return ResumePlan{.request = {.goal = std::move(goal),
                                .workspace = workspace,
                                .config = std::move(config),
                                .resume = std::move(record)},
                    .next_iteration = next,
                    .attempts_finished = finished};
}

} // namespace ralph::session
