#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::cli {

// An editable input line on a terminal (libedit, emacs keys, in-memory history), read through a
// caller's wait so the caller can stop a read from outside (a signal, another thread). Text is
// UTF-8 both ways whatever the locale; showing non-ASCII text needs a UTF-8 LC_CTYPE. One thread.
class LineEditor {
public:
  // `ready` blocks until `in_fd` can be read (true) or the read must stop (false).
  LineEditor(int in_fd, int out_fd, std::function<bool()> ready);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  // The line typed, without its newline; nothing when `ready` said stop or the input ended (Ctrl-D
  // on an empty line, the terminal gone). A line left half typed is dropped. The terminal is in
  // its own (cooked) mode again on return, so what others print starts lines at column 0.
  std::optional<std::string> read(std::string_view prompt);
  // Adds `line` to what the up arrow recalls (at most 1000 lines; a repeat of the last is skipped).
  void add_history(std::string_view line);

  struct Impl; // libedit's state, reached from its C callbacks

private:
  std::unique_ptr<Impl> m_impl;
};

} // namespace ralph::cli
