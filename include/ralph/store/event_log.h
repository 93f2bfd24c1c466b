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
// remembered and reported by `error()`; the run goes on. Each log is fed by one thread at a time;
// logs sharing one file (for_session) may be fed from different threads, each line written whole.
class EventLog final : public EventSink {
public:
  // Creates `path` (parent folders are created), truncating it, or appending to it when
  // `append` (`ralph heartbeat`: one file for all ticks, each tick's lines with its session).
  static Result<std::unique_ptr<EventLog>> open(const std::filesystem::path& path,
                                                std::string session_id, Redactor redactor,
                                                bool append = false);
  // Another session's events into the same file, with the same redactor; lives on its own.
  std::unique_ptr<EventLog> for_session(std::string session_id) const;
  ~EventLog() override;
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  void on_event(const Event& event) override;
  // The first write error of the file, whichever session's line it was; empty when none.
  std::string error() const;

private:
  struct File; // the open file, shared by the logs of one file
  EventLog(std::shared_ptr<File> file, std::string session_id, Redactor redactor);

  std::shared_ptr<File> m_file;
  std::string m_session_id;
  Redactor m_redactor;
};

} // namespace ralph::store
