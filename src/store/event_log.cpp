#include "ralph/store/event_log.h"

#include "ralph/core/time.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace ralph::store {

Result<std::unique_ptr<EventLog>> EventLog::open(const std::filesystem::path& path,
                                                 std::string session_id, Redactor redactor) {
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
  }
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    return fail(ErrorKind::io,
                fmt::format("--events {}: cannot write: {}", path.string(), std::strerror(errno)));
  }
  return std::unique_ptr<EventLog>(
      new EventLog(file, path, std::move(session_id), std::move(redactor)));
}

EventLog::EventLog(std::FILE* file, std::filesystem::path path, std::string session_id,
                   Redactor redactor)
    : m_file(file), m_path(std::move(path)), m_session_id(std::move(session_id)),
      m_redactor(std::move(redactor)) {}

EventLog::~EventLog() {
  std::fclose(m_file);
}

void EventLog::on_event(const Event& event) {
  nlohmann::json line = {{"session", m_session_id},
                         {"time", iso8601_utc(std::chrono::system_clock::now())},
                         {"type", to_string(event.type)}};
  const auto text = [&](const char* key, const std::string& value) {
    if (!value.empty()) {
      line[key] = m_redactor.redact(value);
    }
  };
  const auto number = [&](const char* key, std::int64_t value) {
    if (value != 0) {
      line[key] = value;
    }
  };
  number("iteration", event.iteration);
  number("step", event.step);
  text("text", event.text);
  text("detail", event.detail);
  text("name", event.name);
  text("tool_call_id", event.tool_call_id);
  text("result", event.result);
  text("category", event.category);
  number("number", event.number);
  number("duration_ms", event.duration_ms);
  if (event.exit_code) {
    line["exit_code"] = *event.exit_code;
  }
  if (event.is_error) {
    line["is_error"] = true;
  }
  if (event.usage.input_tokens + event.usage.output_tokens > 0) {
    line["usage"] = {{"input_tokens", event.usage.input_tokens},
                     {"output_tokens", event.usage.output_tokens}};
  }
  const std::string out =
      line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (std::fwrite(out.data(), 1, out.size(), m_file) != out.size() || std::fflush(m_file) != 0) {
    if (m_error.empty()) {
      m_error = fmt::format("--events {}: write failed: {}", m_path.string(), std::strerror(errno));
    }
  }
}

} // namespace ralph::store
