#pragma once

#include "ralph/agent/cli_stream.h"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ralph::agent::testing {

// Every event `format`'s parser gives for `lines` and at the end of them.
inline std::vector<CliEvent> parse_lines(CliFormat format, const std::vector<std::string>& lines) {
  auto parser = make_cli_stream_parser(format);
  std::vector<CliEvent> events;
  for (const std::string& line : lines) {
    parser->parse_line(line, events);
  }
  parser->finish(events);
  return events;
}

// The same lines as a CLI on Windows or behind a pty prints them.
inline std::vector<std::string> with_crlf(std::vector<std::string> lines) {
  for (std::string& line : lines) {
    line += '\r';
  }
  return lines;
}

// The events of type T, in order.
template <typename T> std::vector<T> events_of(const std::vector<CliEvent>& events) {
  std::vector<T> found;
  for (const CliEvent& event : events) {
    if (const T* match = std::get_if<T>(&event)) {
      found.push_back(*match);
    }
  }
  return found;
}

// One line per event, every field shown: streams compare (and failures read) as text.
inline std::string describe(const CliEvent& event) {
  return std::visit(
      [](const auto& e) -> std::string {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, CliText>) {
          return fmt::format("text{} [{}]", e.delta ? " delta" : "", e.text);
        } else if constexpr (std::is_same_v<T, CliToolStarted>) {
          return fmt::format("started {} {} {}", e.call.id, e.call.name, e.call.arguments);
        } else if constexpr (std::is_same_v<T, CliToolFinished>) {
          return fmt::format("finished {} {} {} error={} exit={} [{}]", e.call.id, e.call.name,
                             e.call.arguments, e.is_error,
                             e.exit_code ? std::to_string(*e.exit_code) : "none", e.output);
        } else if constexpr (std::is_same_v<T, CliUsage>) {
          return fmt::format("usage in={} out={} read={} write={} cost={} thread={}",
                             e.usage.input_tokens, e.usage.output_tokens, e.usage.cache_read_tokens,
                             e.usage.cache_write_tokens,
                             e.cost_usd ? fmt::format("{}", *e.cost_usd) : "none", e.thread_total);
        } else if constexpr (std::is_same_v<T, CliSession>) {
          return fmt::format("session {} {}", e.id, e.model);
        } else if constexpr (std::is_same_v<T, CliNotice>) {
          return fmt::format("notice [{}]", e.text);
        } else {
          return fmt::format("result ok={} answer=[{}] error=[{}]", e.ok, e.answer, e.error);
        }
      },
      event);
}

inline std::vector<std::string> describe_all(const std::vector<CliEvent>& events) {
  std::vector<std::string> lines;
  lines.reserve(events.size());
  for (const CliEvent& event : events) {
    lines.push_back(describe(event));
  }
  return lines;
}

// A JSON line whose one string field is `bytes` long: the megabyte lines the CLIs print.
inline std::string padded(std::string_view before, std::size_t bytes, std::string_view after) {
  return fmt::format("{}{}{}", before, std::string(bytes, 'x'), after);
}

} // namespace ralph::agent::testing
