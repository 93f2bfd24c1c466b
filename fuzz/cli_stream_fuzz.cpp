// An agent CLI's stdout: the first byte picks the format (byte % 7, in CliFormat's order: 'F'
// claude, 'G' codex, 'H' gemini, 'I' goose, 'J' opencode, 'K' aider, 'L' text), the rest is cut
// into lines. Nothing throws; in the formats that report tool starts every finished call follows
// a started one with its id; a format without a terminal event ends with exactly one result;
// CRLF line endings change nothing.
#include "fuzz_support.h"

#include "ralph/agent/cli_stream.h"
#include "ralph/core/text.h"

#include <set>
#include <string>
#include <vector>

namespace {

using namespace ralph;
using namespace ralph::agent;

std::vector<CliEvent> parse(CliFormat format, const std::vector<std::string>& lines) {
  auto parser = make_cli_stream_parser(format);
  std::vector<CliEvent> events;
  for (const std::string& line : lines) {
    parser->parse_line(line, events);
  }
  parser->finish(events);
  return events;
}

// Enough of an event to tell two streams apart.
std::string key(const CliEvent& event) {
  return std::visit(
      [](const auto& e) -> std::string {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, CliText>) {
          return "t" + e.text;
        } else if constexpr (std::is_same_v<T, CliToolStarted>) {
          return "s" + e.call.id + '\0' + e.call.name + '\0' + e.call.arguments;
        } else if constexpr (std::is_same_v<T, CliToolFinished>) {
          return "f" + e.call.id + '\0' + e.output + (e.is_error ? "!" : "") +
                 (e.exit_code ? std::to_string(*e.exit_code) : "");
        } else if constexpr (std::is_same_v<T, CliUsage>) {
          return "u" + std::to_string(e.usage.input_tokens) + ' ' +
                 std::to_string(e.usage.output_tokens);
        } else if constexpr (std::is_same_v<T, CliSession>) {
          return "i" + e.id;
        } else if constexpr (std::is_same_v<T, CliNotice>) {
          return "n" + e.text;
        } else {
          return "r" + e.answer + '\0' + e.error + (e.ok ? "+" : "-");
        }
      },
      event);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const auto format = static_cast<CliFormat>(data[0] % 7);
  std::vector<std::string> lines;
  bool has_cr = false;
  for (const std::string_view line : split_lines(fuzz::as_text(data + 1, size - 1))) {
    lines.emplace_back(line);
    has_cr = has_cr || line.ends_with('\r');
  }
  const auto events = parse(format, lines);

  const bool reports_starts = format == CliFormat::claude || format == CliFormat::codex ||
                              format == CliFormat::gemini || format == CliFormat::goose;
  std::set<std::string> started;
  for (const CliEvent& event : events) {
    if (const auto* start = std::get_if<CliToolStarted>(&event)) {
      started.insert(start->call.id);
    } else if (const auto* end = std::get_if<CliToolFinished>(&event); end && reports_starts) {
      fuzz::check(started.contains(end->call.id), "a call finished that never started");
    }
    if (std::holds_alternative<CliToolStarted>(event)) {
      fuzz::check(reports_starts, "a start from a format that reports only finished calls");
    }
  }
  if (format == CliFormat::aider || format == CliFormat::text) {
    std::size_t results = 0;
    for (const CliEvent& event : events) {
      results += std::holds_alternative<CliResult>(event) ? 1 : 0;
    }
    fuzz::check(results == 1 && std::holds_alternative<CliResult>(events.back()),
                "a plain-text format did not end with exactly one result");
  }
  if (format == CliFormat::opencode) {
    std::size_t results = 0;
    for (const CliEvent& event : events) {
      results += std::holds_alternative<CliResult>(event) ? 1 : 0;
    }
    fuzz::check(results <= 1, "opencode ended twice");
  }
  if (!has_cr && format != CliFormat::text) {
    std::vector<std::string> crlf = lines;
    for (std::string& line : crlf) {
      line += '\r';
    }
    const auto again = parse(format, crlf);
    fuzz::check(again.size() == events.size(), "CRLF changed the number of events");
    for (std::size_t i = 0; i < events.size() && i < again.size(); ++i) {
      fuzz::check(key(events[i]) == key(again[i]), "CRLF changed an event");
    }
  }
  return 0;
}
