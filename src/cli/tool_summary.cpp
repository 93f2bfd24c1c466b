#include "cli/tool_summary.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace ralph::cli {
namespace {

constexpr std::size_t k_value_width = 60;

std::string show_value(const nlohmann::json& value) {
  if (!value.is_string()) {
    return first_line(value.dump(), k_value_width);
  }
  const auto& text = value.get_ref<const std::string&>();
  if (text.find('\n') != std::string::npos || text.size() > k_value_width) {
    return fmt::format("<{} bytes>", text.size());
  }
  return text;
}

} // namespace

std::string first_line(std::string_view text, std::size_t width) {
  const std::size_t newline = text.find('\n');
  const std::string_view line = text.substr(0, newline);
  std::string out(utf8_prefix(line, width));
  if (out.size() < text.size()) {
    out += "…";
  }
  return out;
}

std::string summarize_arguments(std::string_view tool, std::string_view arguments_json,
                                std::size_t width) {
  const auto parsed = parse_json(arguments_json, "tool arguments");
  if (!parsed || !parsed->is_object()) {
    return first_line(arguments_json, width);
  }
  const nlohmann::json& args = *parsed;
  if (tool == "shell" && args.contains("command") && args["command"].is_string()) {
    return first_line(args["command"].get_ref<const std::string&>(), width);
  }
  std::string line;
  // The path first: it is what a reader scans for.
  if (args.contains("path")) {
    line = fmt::format("path={}", show_value(args["path"]));
  }
  for (const auto& [key, value] : args.items()) {
    if (key == "path") {
      continue;
    }
    line += fmt::format("{}{}={}", line.empty() ? "" : " ", key, show_value(value));
  }
  return first_line(line, width);
}

std::string output_tail(std::string_view content, int lines) {
  std::vector<std::string_view> kept;
  std::size_t end = content.size();
  bool skipped_status = false;
  while (end > 0 && static_cast<int>(kept.size()) < lines) {
    const std::size_t start = content.rfind('\n', end - 1);
    const std::size_t begin = start == std::string_view::npos ? 0 : start + 1;
    const std::string_view line = content.substr(begin, end - begin);
    end = start == std::string_view::npos ? 0 : start;
    if (line.empty()) {
      continue;
    }
    if (!skipped_status) {
      skipped_status = true; // the shell tool's closing status line is shown separately
      continue;
    }
    kept.push_back(line);
  }
  std::string out;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    out += fmt::format("{}{}", out.empty() ? "" : "\n", first_line(*it, 120));
  }
  return out;
}

} // namespace ralph::cli
