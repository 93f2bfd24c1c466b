#include "cli/best_of_view.h"

#include "ralph/core/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::cli {
namespace {

nlohmann::json optional_json(const std::optional<int>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string cost_text(const std::optional<double>& cost) {
  return cost ? fmt::format("${:.4f}", *cost) : "-";
}

} // namespace

void BestOfView::on_start(const app::BestOfStart& start) {
  if (m_quiet) {
    return;
  }
  const std::string banner =
      fmt::format("ralph {} · best of {} · {} · workspace {} · attempts in {}\n", RALPH_VERSION,
                  start.attempts, m_agent, start.workspace.string(), start.attempts_dir.string());
  std::fputs(m_redactor.redact(banner).c_str(), stderr);
}

void BestOfView::on_interrupted_making_workspaces(const std::filesystem::path& attempts_dir) {
  std::fprintf(stderr, "ralph: interrupted while making the attempts' workspaces in %s\n",
               attempts_dir.c_str());
}

void BestOfView::on_event(int attempt, const Event& event) {
  if (m_quiet) {
    return;
  }
  std::string line;
  if (event.get<event::AttemptStarted>() != nullptr) {
    line = fmt::format("attempt {} started", event.iteration);
  } else if (const auto* verdict = event.get<event::VerdictGiven>()) {
    line = fmt::format("verdict of {}: {}{}", verdict->verifier, to_string(verdict->result),
                       verdict->category.empty() ? "" : " [" + verdict->category + "]");
  } else if (const auto* failure = event.get<event::Failure>()) {
    line = "error: " + first_line(failure->message, 300);
  } else if (const auto* ended = event.get<event::RunEnded>()) {
    line = fmt::format("{}{}", to_string(ended->status),
                       ended->reason.empty() ? "" : " · " + first_line(ended->reason, 200));
  } else {
    return;
  }
  const std::string text = fmt::format("[{}] {}\n", attempt, line);
  std::fwrite(text.data(), 1, text.size(), stderr);
}

void print_best_of_json(std::FILE* out, const app::BestOfReport& report) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const app::CandidateReport& c : report.candidates) {
    nlohmann::json entry = {
        {"index", c.index},
        {"session_id", c.session_id},
        {"status", to_string(c.status)},
        {"reason", c.reason},
        {"verified", c.verified},
        {"passing_verdicts", c.passing_verdicts},
        {"verdicts", c.verdicts},
        {"changed_lines", optional_json(c.changed_lines)},
        {"added", c.added},
        {"removed", c.removed},
        {"usage",
         {{"input_tokens", c.usage.input_tokens}, {"output_tokens", c.usage.output_tokens}}},
        {"cost_usd", c.cost_usd ? nlohmann::json(*c.cost_usd) : nlohmann::json(nullptr)},
        {"workspace", c.workspace},
        {"branch", c.branch},
        {"diff", c.diff},
    };
    if (!c.error.empty()) {
      entry["error"] = c.error;
    }
    candidates.push_back(std::move(entry));
  }
  nlohmann::json result = {
      {"session_id", report.session_id},
      {"status", to_string(report.status)},
      {"parallel_attempts", report.candidates.size()},
      {"winner", optional_json(report.winner)},
      {"best", report.best},
      {"why", report.why},
      {"applied", report.applied},
      {"unchanged", report.unchanged},
      {"commit", report.commit.empty() ? nlohmann::json() : nlohmann::json(report.commit)},
      {"answer", report.answer},
      {"order", report.order},
      {"workspace", report.workspace},
      {"candidates", std::move(candidates)},
  };
  if (!report.apply_error.empty()) {
    result["error"] = report.apply_error;
  }
  fmt::print(out, "{}\n", result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  std::fflush(out);
}

std::string best_of_table(const app::BestOfReport& report) {
  std::string out;
  const std::size_t n = report.candidates.size();
  if (report.winner) {
    out += fmt::format("best of {}: attempt {} won ({})", n, *report.winner, report.why);
    if (report.applied && report.unchanged) {
      out += " · it changed no file: nothing to apply";
    } else if (report.applied) {
      out += report.commit.empty()
                 ? " · applied to the workspace"
                 : fmt::format(" · applied as commit {}", report.commit.substr(0, 12));
    } else {
      out += " · not applied: " + report.apply_error;
    }
  } else {
    out += fmt::format("best of {}: {} · attempt {} came closest · nothing applied", n,
                       report.why.empty() ? "none passed" : report.why, report.best);
  }
  out += fmt::format("\n{:>3}  {:<17} {:<8} {:>8} {:>9} {:>10}  {}\n", "#", "status", "verified",
                     "changed", "tokens", "cost", "session · workspace");
  for (const int index : report.order) {
    const app::CandidateReport& c = report.candidates.at(static_cast<std::size_t>(index - 1));
    out += fmt::format("{:>3}  {:<17} {:<8} {:>8} {:>9} {:>10}  {} · {}\n", c.index,
                       to_string(c.status),
                       c.verified ? "yes" : fmt::format("no {}/{}", c.passing_verdicts, c.verdicts),
                       c.changed_lines ? fmt::format("+{} -{}", c.added, c.removed) : "-",
                       c.usage.input_tokens + c.usage.output_tokens, cost_text(c.cost_usd),
                       c.session_id.empty() ? "-" : c.session_id, c.workspace);
    if (!c.error.empty()) {
      out += fmt::format("     error: {}\n", c.error);
    }
  }
  return out;
}

} // namespace ralph::cli
