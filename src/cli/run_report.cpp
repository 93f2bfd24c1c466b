#include "cli/run_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::cli {

void print_json_report(std::FILE* out, const RunReport& report) {
  nlohmann::json result = {
      {"session_id", report.session_id},
      {"status", to_string(report.status)},
      {"iterations", report.iterations},
      {"answer", report.answer},
      {"verdicts", nlohmann::json::array()},
      {"usage",
       {{"input_tokens", report.usage.input_tokens},
        {"output_tokens", report.usage.output_tokens}}},
      {"steps", report.steps},
      {"tool_calls", report.tool_calls},
      {"duration_ms", report.duration_ms},
  };
  if (report.error) {
    result["error"] = {{"kind", to_string(report.error->kind)}, {"message", report.error->message}};
  }
  // Replace, not throw, on invalid UTF-8: the answer comes from outside.
  const std::string text = result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  fmt::print(out, "{}\n", text);
  std::fflush(out);
}

std::string summary_line(const RunReport& report) {
  return fmt::format("{} · {} step{} · {} tool call{} · {} in / {} out tokens · {:.1f} s",
                     to_string(report.status), report.steps, report.steps == 1 ? "" : "s",
                     report.tool_calls, report.tool_calls == 1 ? "" : "s",
                     report.usage.input_tokens, report.usage.output_tokens,
                     static_cast<double>(report.duration_ms) / 1000.0);
}

} // namespace ralph::cli
