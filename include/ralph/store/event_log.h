#pragma once

#include "ralph/core/error.h"
#include "ralph/core/event.h"
#include "ralph/core/redactor.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

namespace ralph::store {

// Writes every event as one JSON object per line (NDJSON), flushed as it happens, so another
// process can follow the file live. Fields: "session", "time" (ISO 8601 UTC), "type", then the
// event's non-empty fields. Secrets known to `redactor` never reach the file. A write error is
// remembered and reported by `error()`; the run goes on. Single-threaded, like the loop.
class EventLog final : public EventSink {
public:
  // Creates `path` (parent folders are created), truncating it, or appending to it when
  // `append` (`ralph heartbeat`: one file for all ticks, each tick's lines with its session).
  static Result<std::unique_ptr<EventLog>> open(const std::filesystem::path& path,
                                                std::string session_id, Redactor redactor,
                                                bool append = false);
  ~EventLog() override;
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  void on_event(const Event& event) override;
  const std::string& error() const { return m_error; }

private:
  EventLog(std::FILE* file, std::filesystem::path path, std::string session_id, Redactor redactor);

  std::FILE* m_file;
  std::filesystem::path m_path;
  std::string m_session_id;
  Redactor m_redactor;
  std::string m_error;
};

} // namespace ralph::store
