#include "ralph/store/event_log.h"

#include "ralph/core/event_json.h"
#include "ralph/core/time.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>

namespace ralph::store {

struct EventLog::File {
  File(std::FILE* opened, std::filesystem::path where) : file(opened), path(std::move(where)) {}
  ~File() { std::fclose(file); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  std::mutex mutex; // one line at a time, whole
  std::FILE* file;
  std::filesystem::path path;
  std::string error;
};

Result<std::unique_ptr<EventLog>> EventLog::open(const std::filesystem::path& path,
                                                 std::string session_id, Redactor redactor,
                                                 bool append) {
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
  }
  std::FILE* file = std::fopen(path.c_str(), append ? "a" : "w");
  if (file == nullptr) {
    return fail(ErrorKind::io,
                fmt::format("--events {}: cannot write: {}", path.string(), std::strerror(errno)));
  }
  return std::unique_ptr<EventLog>(
      new EventLog(std::make_shared<File>(file, path), std::move(session_id), std::move(redactor)));
}

EventLog::EventLog(std::shared_ptr<File> file, std::string session_id, Redactor redactor)
    : m_file(std::move(file)), m_session_id(std::move(session_id)),
      m_redactor(std::move(redactor)) {}

EventLog::~EventLog() = default;

std::unique_ptr<EventLog> EventLog::for_session(std::string session_id) const {
  return std::unique_ptr<EventLog>(new EventLog(m_file, std::move(session_id), m_redactor));
}

std::string EventLog::error() const {
  std::lock_guard lock(m_file->mutex);
  return m_file->error;
}

void EventLog::on_event(const Event& event) {
  nlohmann::json payload = event_to_json(event);
  // Values, before they are escaped for JSON, where a secret would no longer be found as written.
  m_redactor.redact_values(payload);
  nlohmann::json line = {{"session", m_session_id},
                         {"time", iso8601_utc(std::chrono::system_clock::now())}};
  line.update(payload);
  const std::string out =
      line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard lock(m_file->mutex);
  if (std::fwrite(out.data(), 1, out.size(), m_file->file) != out.size() ||
      std::fflush(m_file->file) != 0) {
    if (m_file->error.empty()) {
      m_file->error =
          fmt::format("--events {}: write failed: {}", m_file->path.string(), std::strerror(errno));
    }
  }
}

} // namespace ralph::store
