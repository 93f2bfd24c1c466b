#include "cli/run_report.h"

#include "cli/terminal_view.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::cli {

void print_json_report(std::FILE* out, const session::SessionReport& report) {
  const nlohmann::json result = report_json(report);
  // Replace, not throw, on invalid UTF-8: the answer comes from outside.
  const std::string text = result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  fmt::print(out, "{}\n", text);
  std::fflush(out);
}

void print_answer(std::FILE* out, const TerminalView& view, const session::SessionReport& report) {
  if (!view.answer_shown() && !report.answer.empty()) {
    fmt::print(out, "{}\n", report.answer);
  } else if (!report.notice.empty()) {
    fmt::print(out, "\n{}\n", report.notice);
  }
  std::fflush(out);
}

std::string summary_line(const session::SessionReport& report, bool with_reason) {
  std::string line = to_string(report.status);
  if (with_reason && !report.reason.empty() && report.reason != line) {
    line += " · " + report.reason;
  }
  const char* about = report.usage.estimated ? "~" : "";
  line += fmt::format(" · {} attempt{} · {} step{} · {} tool call{} · {}{} in / {}{} out tokens{}",
                      report.iterations, report.iterations == 1 ? "" : "s", report.steps,
                      report.steps == 1 ? "" : "s", report.tool_calls,
                      report.tool_calls == 1 ? "" : "s", about, report.usage.input_tokens, about,
                      report.usage.output_tokens, report.usage.estimated ? " (estimated)" : "");
  if (report.cost_usd) {
    line += fmt::format(" · ${:.4f}", *report.cost_usd);
  }
  return line + fmt::format(" · {:.1f} s", static_cast<double>(report.duration_ms) / 1000.0);
}

} // namespace ralph::cli
