#include "cli/session_view.h"

#include "cli/tool_summary.h"

#include "ralph/core/json.h"
#include "ralph/core/saturating.h"
#include "ralph/core/time.h"
#include "ralph/store/record_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace ralph::cli {
namespace {

using json = nlohmann::json;

constexpr std::size_t k_goal_width = 48;
constexpr std::size_t k_line_width = 120;
constexpr int k_verdict_lines = 6;

std::string tokens(std::int64_t count) {
  if (count < 10'000) {
    return std::to_string(count);
  }
  return fmt::format("{:.1f}k", static_cast<double>(count) / 1000.0);
}

std::string cost(const store::SessionRow& row) {
  if (row.cost_usd <= 0) {
    return "-";
  }
  return fmt::format("{}${:.4f}", row.cost_known ? "" : ">", row.cost_usd);
}

std::string age(const std::string& iso, std::chrono::system_clock::time_point now) {
  const auto when = parse_iso8601_utc(iso);
  return when ? short_age(now - *when) : "?";
}

// "    │ evidence: `make check` · exit 2" and, when the output went to a file, where it is.
std::string evidence_lines(const std::string& evidence_json) {
  const json evidence = parse_json(evidence_json, "evidence").value_or(json());
  if (!evidence.is_object() || !evidence.contains("command")) {
    return {};
  }
  std::string out = fmt::format(
      "    │ evidence: `{}` · {}\n", first_line(string_member(evidence, "command"), k_line_width),
      evidence.contains("exit_code") && evidence["exit_code"].is_number_integer()
          ? fmt::format("exit {}", evidence["exit_code"].get<int>())
          : std::string("no exit code"));
  if (const std::string_view path = string_member(evidence, "output_path"); !path.empty()) {
    out += fmt::format("    │ whole output: {}\n", path);
  }
  return out;
}

const char* mark(Outcome result) {
  switch (result) {
  case Outcome::pass:
    return "✓";
  case Outcome::fail:
    return "✗";
  case Outcome::error:
    break;
  }
  return "!";
}

// Indented lines of `text`, at most `lines` of them, each cut to the line width.
std::string indented(std::string_view text, int lines, std::string_view prefix) {
  std::string out;
  std::size_t start = 0;
  for (int shown = 0; shown < lines && start < text.size(); ++shown) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    out += fmt::format("{}{}\n", prefix, first_line(text.substr(start, end - start), k_line_width));
    start = end + 1;
  }
  return out;
}

// Plain runs carry no marker, so their lines read as before kinds existed.
std::string kind_marker(const store::SessionRow& row) {
  return row.kind == store::SessionKind::run ? std::string()
                                             : fmt::format("[{}] ", to_string(row.kind));
}

// An attempt's tool calls. A run killed during an attempt leaves the calls it made; the resumed
// run starts the attempt over (a new start time, its calls numbered from 1 again) and the loop
// counts only its own.
struct AttemptTools {
  std::vector<const store::ToolCallRow*> stopped_run; // recorded before the attempt (re)started
  std::vector<const store::ToolCallRow*> this_run;
};

AttemptTools tools_of(const store::SessionRecord& record, const store::AttemptRow& attempt) {
  AttemptTools out;
  for (const store::ToolCallRow& tool : record.tool_calls) {
    if (tool.iteration != attempt.iteration) {
      continue;
    }
    // Both ISO 8601 UTC with milliseconds from the same clock: text order is time order.
    (tool.at < attempt.started_at ? out.stopped_run : out.this_run).push_back(&tool);
  }
  return out;
}

// "  → shell make test · exit 2\n"
std::string tool_line(const store::ToolCallRow& tool) {
  const std::string outcome = tool.exit_code  ? fmt::format("exit {}", *tool.exit_code)
                              : tool.is_error ? std::string("error")
                                              : std::string("ok");
  return fmt::format("  → {} {} · {}{}\n", tool.name,
                     summarize_arguments(tool.name, tool.arguments, 80), outcome,
                     tool.changed_workspace ? " · changed the workspace" : "");
}

json usage_json(const store::SessionRow& row) {
  json usage = {{"input_tokens", row.input_tokens}, {"output_tokens", row.output_tokens}};
  if (row.usage_estimated) {
    usage["estimated"] = true;
  }
  return usage;
}

} // namespace

std::string shown_status(const store::SessionRow& row, const OwnerCheck& running) {
  return store::session_stopped(row, running) ? "stopped" : to_string(row.status);
}

// For a person, a completed session also says whether its answer was verified: "completed"
// alone would claim it. A chat left by its person has no answer to verify: it ended.
std::string status_text(const store::SessionRow& row, const OwnerCheck& running) {
  if (row.status == Status::completed && row.kind == store::SessionKind::chat) {
    return "ended";
  }
  if (row.status == Status::completed && !row.verified) {
    return "completed, unverified";
  }
  return shown_status(row, running);
}

std::vector<std::string> status_filter_names() {
  std::vector<std::string> names;
  for (const auto& [status, name] : k_status_names) {
    names.emplace_back(name);
  }
  names.emplace_back("stopped");
  names.emplace_back("verified");
  return names;
}

std::vector<std::string> kind_filter_names() {
  std::vector<std::string> names;
  for (const auto& [kind, name] : store::k_session_kind_names) {
    names.emplace_back(name);
  }
  return names;
}

std::string render_session_list(const std::vector<store::SessionRow>& sessions,
                                std::chrono::system_clock::time_point now,
                                const OwnerCheck& running) {
  if (sessions.empty()) {
    return "no sessions recorded in this workspace\n";
  }
  std::string out = fmt::format("{:<28} {:<21} {:>5} {:>8} {:>10} {:>5}  {}\n", "ID", "STATUS",
                                "ITER", "TOKENS", "COST", "AGE", "GOAL");
  for (const auto& row : sessions) {
    out += fmt::format("{:<28} {:<21} {:>5} {:>8} {:>10} {:>5}  {}\n", row.id,
                       status_text(row, running), row.iterations,
                       (row.usage_estimated ? "~" : "") +
                           tokens(saturating_add(row.input_tokens, row.output_tokens)),
                       cost(row), age(row.updated_at, now),
                       kind_marker(row) + first_line(row.goal, k_goal_width));
  }
  return out;
}

std::string render_session(const store::SessionRecord& record, const OwnerCheck& running,
                           const std::vector<store::SessionRow>& goals) {
  const store::SessionRow& row = record.session;
  const char* step = row.kind == store::SessionKind::chat ? "turn" : "attempt";
  const std::string status = status_text(row, running);
  std::string reason = row.reason;
  if (reason.empty() && row.status == Status::active && status != to_string(row.status)) {
    reason = "its process ended before the session did; `ralph sessions resume` continues it";
  }
  std::string out =
      fmt::format("session {} · {}{}\n", row.id, status, reason.empty() ? "" : " · " + reason);
  if (row.kind != store::SessionKind::run || !row.parent_id.empty()) {
    out += fmt::format("kind:      {}{}\n", to_string(row.kind),
                       row.parent_id.empty() ? ""
                       : row.kind == store::SessionKind::goal
                           ? " of chat " + row.parent_id
                           : " of best-of-N session " + row.parent_id);
  }
  out += fmt::format("goal:      {}\n", row.goal);
  out += fmt::format("model:     {}\n", row.model);
  out += fmt::format("workspace: {}\n", row.workspace);
  out += fmt::format("created:   {} · updated {}\n", row.created_at, row.updated_at);
  out += fmt::format("spent:     {} in / {} out tokens{} · {} · {:.1f} s\n", row.input_tokens,
                     row.output_tokens, row.usage_estimated ? " (estimated)" : "", cost(row),
                     static_cast<double>(row.elapsed_ms) / 1000.0);
  for (const auto& attempt : record.attempts) {
    const AttemptTools tools = tools_of(record, attempt);
    // A finished attempt counts its calls as the loop did; a running or killed one, as recorded.
    const int calls =
        attempt.finished ? attempt.tool_calls : static_cast<int>(tools.this_run.size());
    out += fmt::format("\n── {} {} · {} · {} step{} · {} tool call{} · {:.1f} s{} ──\n", step,
                       attempt.iteration, attempt.started_at, attempt.steps,
                       attempt.steps == 1 ? "" : "s", calls, calls == 1 ? "" : "s",
                       static_cast<double>(attempt.duration_ms) / 1000.0,
                       attempt.finished ? "" : " · did not finish");
    if (!tools.stopped_run.empty()) {
      out += fmt::format("  before the resume, a run of this {} that was stopped made {} tool "
                         "call{}:\n",
                         step, tools.stopped_run.size(), tools.stopped_run.size() == 1 ? "" : "s");
      for (const store::ToolCallRow* tool : tools.stopped_run) {
        out += "  " + tool_line(*tool);
      }
    }
    for (const store::ToolCallRow* tool : tools.this_run) {
      out += tool_line(*tool);
    }
    if (!attempt.finished) {
      continue;
    }
    out += "  answer:\n" + indented(attempt.answer, 20, "    ");
    if (!attempt.skip_reason.empty()) {
      out += fmt::format("  · not verified: {}\n", attempt.skip_reason);
    }
    for (const auto& verdict : record.verdicts) {
      if (verdict.iteration != attempt.iteration) {
        continue;
      }
      out += fmt::format("  {} {} · {}{}{}\n", mark(verdict.result), verdict.verifier,
                         to_string(verdict.result),
                         verdict.category.empty() ? "" : " " + verdict.category,
                         verdict.policy ? fmt::format(" ({})", to_string(*verdict.policy)) : "");
      if (verdict.result != Outcome::pass) {
        out += indented(verdict.feedback, k_verdict_lines, "    │ ");
      }
      out += evidence_lines(verdict.evidence_json);
    }
    if (!attempt.feedback.empty()) {
      out += fmt::format("  ↩ feedback: {}\n", first_line(attempt.feedback, k_line_width));
    }
  }
  if (!goals.empty()) {
    out += row.kind == store::SessionKind::best_of ? "\ncandidates:\n" : "\ngoals:\n";
    for (const store::SessionRow& goal : goals) {
      out += fmt::format("  {} · {}{} · {} attempt{} · {}\n", goal.id, status_text(goal, running),
                         goal.verified ? " · verified" : "", goal.iterations,
                         goal.iterations == 1 ? "" : "s", first_line(goal.goal, k_goal_width));
    }
  }
  if (!row.answer.empty()) {
    out += "\nanswer:\n" + row.answer + "\n";
  }
  return out;
}

std::string session_list_json(const std::vector<store::SessionRow>& sessions,
                              const OwnerCheck& running) {
  json out = json::array();
  for (const auto& row : sessions) {
    out.push_back({{"id", row.id},
                   {"kind", to_string(row.kind)},
                   {"parent_id", row.parent_id},
                   {"goal", row.goal},
                   {"status", shown_status(row, running)},
                   {"reason", row.reason},
                   {"verified", row.verified},
                   {"model", row.model},
                   {"iterations", row.iterations},
                   {"usage", usage_json(row)},
                   {"cost_usd", row.cost_usd > 0 && row.cost_known ? json(row.cost_usd) : json()},
                   {"created_at", row.created_at},
                   {"updated_at", row.updated_at}});
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string session_record_json(const store::SessionRecord& record, const OwnerCheck& running,
                                const std::vector<store::SessionRow>& goals) {
  const store::SessionRow& row = record.session;
  json attempts = json::array();
  for (const auto& attempt : record.attempts) {
    const AttemptTools of_attempt = tools_of(record, attempt);
    json tools = json::array();
    for (const store::ToolCallRow* tool : of_attempt.stopped_run) {
      json call = store::tool_call_json(*tool);
      call["stopped_run"] = true;
      tools.push_back(std::move(call));
    }
    for (const store::ToolCallRow* tool : of_attempt.this_run) {
      tools.push_back(store::tool_call_json(*tool));
    }
    json verdicts = json::array();
    for (const auto& verdict : record.verdicts) {
      if (verdict.iteration == attempt.iteration) {
        verdicts.push_back(store::verdict_json(verdict));
      }
    }
    json entry = store::attempt_json(attempt);
    entry["messages"] = store::json_or_text(attempt.messages_json);
    entry["tool_calls"] = std::move(tools);
    entry["verdicts"] = std::move(verdicts);
    attempts.push_back(std::move(entry));
  }
  json calls = json::array();
  for (const auto& call : record.model_calls) {
    calls.push_back(store::model_call_json(call));
  }
  json out = {
      {"id", row.id},
      {"kind", to_string(row.kind)},
      {"parent_id", row.parent_id},
      {"goal", row.goal},
      {"status", shown_status(row, running)},
      {"reason", row.reason},
      {"verified", row.verified},
      {"answer", row.answer},
      {"model", row.model},
      {"workspace", row.workspace},
      {"created_at", row.created_at},
      {"updated_at", row.updated_at},
      {"iterations", row.iterations},
      {"best_iteration", row.best_iteration},
      {"usage", usage_json(row)},
      {"cost_usd", row.cost_usd > 0 && row.cost_known ? json(row.cost_usd) : json()},
      {"elapsed_ms", row.elapsed_ms},
      {"config", store::json_or_text(row.config_json)},
      {"attempts", std::move(attempts)},
      {"model_calls", std::move(calls)},
  };
  if (row.kind == store::SessionKind::chat) {
    out["goals"] = json::parse(session_list_json(goals, running));
  } else if (row.kind == store::SessionKind::best_of) {
    out["candidates"] = json::parse(session_list_json(goals, running));
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace ralph::cli
