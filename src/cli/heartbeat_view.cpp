#include "cli/heartbeat_view.h"

#include "ralph/core/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::cli {
namespace {

using json = nlohmann::json;

constexpr std::size_t k_answer_width = 40;

struct Ticks {
  std::vector<const store::SessionRow*> shown; // newest first
  int total = 0;
  int verified = 0;
  int unverified = 0;    // completed without every verifier passing (or with none)
  int not_completed = 0; // failed, out of budget, stalled, blocked, interrupted, running
};

Ticks heartbeat_ticks(const std::vector<store::SessionRow>& sessions) {
  Ticks ticks;
  for (const store::SessionRow& row : sessions) {
    if (row.kind != store::SessionKind::heartbeat) {
      continue;
    }
    ++ticks.total;
    if (row.status != Status::completed) {
      ++ticks.not_completed;
    } else if (row.verified) {
      ++ticks.verified;
    } else {
      ++ticks.unverified;
    }
    if (ticks.shown.size() < k_heartbeat_ticks_shown) {
      ticks.shown.push_back(&row);
    }
  }
  return ticks;
}

// The answer's first line (HEARTBEAT_OK, or what was done); without one, why the tick ended.
std::string answer_line(const store::SessionRow& row) {
  if (!trim(row.answer).empty()) {
    return first_line(trim(row.answer), k_answer_width);
  }
  return row.reason.empty() ? "-" : "(" + first_line(row.reason, k_answer_width - 2) + ")";
}

} // namespace

std::string render_heartbeat_list(const std::vector<store::SessionRow>& sessions,
                                  const OwnerCheck& running) {
  const Ticks ticks = heartbeat_ticks(sessions);
  if (ticks.total == 0) {
    return "no heartbeat ticks recorded in this workspace (`ralph heartbeat` runs one)\n";
  }
  std::string out = fmt::format("{:<24} {:<16} {:<8} {:>9}  {:<40}  {}\n", "STARTED", "STATUS",
                                "VERIFIED", "DURATION", "ANSWER", "ID");
  for (const store::SessionRow* row : ticks.shown) {
    out += fmt::format("{:<24} {:<16} {:<8} {:>7.1f} s  {:<40}  {}\n", row->created_at,
                       shown_status(*row, running), row->verified ? "yes" : "no",
                       static_cast<double>(row->elapsed_ms) / 1000.0, answer_line(*row), row->id);
  }
  out += fmt::format("{} tick{}{}: {} verified, {} completed unverified, {} not completed\n",
                     ticks.total, ticks.total == 1 ? "" : "s",
                     ticks.shown.size() < static_cast<std::size_t>(ticks.total)
                         ? fmt::format(" ({} most recent shown)", ticks.shown.size())
                         : std::string(),
                     ticks.verified, ticks.unverified, ticks.not_completed);
  return out;
}

std::string heartbeat_list_json(const std::vector<store::SessionRow>& sessions,
                                const OwnerCheck& running) {
  const Ticks ticks = heartbeat_ticks(sessions);
  json shown = json::array();
  for (const store::SessionRow* row : ticks.shown) {
    shown.push_back({{"id", row->id},
                     {"started_at", row->created_at},
                     {"status", shown_status(*row, running)},
                     {"reason", row->reason},
                     {"verified", row->verified},
                     {"iterations", row->iterations},
                     {"duration_ms", row->elapsed_ms},
                     {"answer", row->answer}});
  }
  const json out = {{"ticks", std::move(shown)},
                    {"total",
                     {{"ticks", ticks.total},
                      {"verified", ticks.verified},
                      {"unverified", ticks.unverified},
                      {"not_completed", ticks.not_completed}}}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace ralph::cli
