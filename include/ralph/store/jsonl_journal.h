#pragma once

#include "ralph/core/error.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ralph::store {

// An append-only file of JSON lines that survives kill -9 and power cuts line by line: each
// append is one write(2) followed by fsync(2), and a line torn by a crash (no newline at the end
// of the file) is cut off when the file is opened again, so the next line never joins it. Used
// by one thread.
class JsonlJournal {
public:
  // Opens (creating it and its folder) `path` and reads the objects already in it; lines that
  // are not JSON objects are skipped.
  static Result<std::unique_ptr<JsonlJournal>> open(const std::filesystem::path& path);
  ~JsonlJournal();
  JsonlJournal(const JsonlJournal&) = delete;
  JsonlJournal& operator=(const JsonlJournal&) = delete;

  // The objects in the file when it was opened, oldest first.
  const std::vector<nlohmann::json>& existing() const;
  // Appends `object` as one line; durable when it returns.
  Result<void> append(const nlohmann::json& object);
  const std::filesystem::path& path() const { return m_path; }

private:
  JsonlJournal(int fd, std::filesystem::path path);

  int m_fd = -1;
  std::filesystem::path m_path;
  std::unique_ptr<std::vector<nlohmann::json>> m_existing;
};

} // namespace ralph::store
