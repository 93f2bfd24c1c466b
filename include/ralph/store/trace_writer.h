#pragma once

#include "ralph/core/error.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::store {

// One attempt's trace, as JSON text built by the caller.
struct TraceEntry {
  std::string session_id;
  std::string goal;
  std::string created_at; // the session's
  int iteration = 0;
  std::string json; // the attempt's trace document (already redacted)
};

// Seed 003's trace layout, made safe: after each attempt, `DIR/iter-XX.json` (the latest run's
// iterations), `DIR/sessions/<session-id>/iter-XX.json` (the archive) and
// `DIR/session-index.json`:
//   {"version": 1, "sessions": [{"id", "goal", "created_at", "updated_at",
//     "iterations": [{"iteration": 1, "path": "sessions/<id>/iter-01.json"}]}]}
// Every file is written atomically (a temporary file in the same folder, fsync, rename) while
// holding an exclusive lock on `DIR/.lock`, so concurrent writers (threads or processes) never
// lose each other's entries. Paths in the index are relative to DIR. A corrupt or unreadable
// index is reported through `warnings` and rebuilt from the archive, never silently emptied; the
// bad file is kept as `session-index.json.corrupt-<time>`. The rebuild takes each session's goal
// and creation time from `sessions/<id>/session.json`, which the writer keeps beside the traces,
// so `TraceEntry::json` may have any shape. A session id must be one folder name (not empty, no
// '/', '\', "..", NUL), or write() fails with a `usage` error.
class TraceWriter {
public:
  explicit TraceWriter(std::filesystem::path dir);

  // Writes the entry's files and updates the index. Returns warnings (e.g. "session-index.json
  // was corrupt (...); rebuilt from 3 archived traces") for the caller to show.
  Result<std::vector<std::string>> write(const TraceEntry& entry);

  const std::filesystem::path& dir() const { return m_dir; }

private:
  std::filesystem::path m_dir;
};

// Writes `content` to `path` atomically: a temporary file next to it, fsync, rename.
Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view content);

} // namespace ralph::store
