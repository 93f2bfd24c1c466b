#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::cli {

// The lines typed into chats: a UTF-8 text file, one entry a line, each appended as it is entered
// so a crash loses none. A file that cannot be read or written costs one warning on stderr, and
// the chat goes on without it: history is never worth failing for.
class HistoryFile {
public:
  explicit HistoryFile(std::filesystem::path path); // empty: no file
  // The last `count` entries, oldest first; none when there is no file yet.
  std::vector<std::string> load(std::size_t count);
  // Appends one entry (its parent folders are made the first time).
  void append(std::string_view line);

private:
  void give_up(std::string_view what, int error);

  std::filesystem::path m_path;
};

} // namespace ralph::cli
