#pragma once

#include "cli/history_file.h"
#include "cli/interrupt.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::cli {

class LineEditor;

// What ended a wait for the person at the chat.
struct InputEvent {
  enum class Kind {
    line,      // `text` holds the line typed, without its newline
    interrupt, // Ctrl-C (SIGINT)
    terminate, // SIGTERM
    woken,     // wake() was called
    end,       // Ctrl-D on an empty line, or the end of the input
  };
  Kind kind = Kind::end;
  std::string text;
};

// The chat's input: lines typed at a prompt with line editing and history when `in_fd` is a
// terminal, plain lines otherwise (a script), and in both cases Ctrl-C, SIGTERM and wake() from
// another thread end a wait. While alive it owns SIGINT and SIGTERM (an InterruptPipe): create it
// after any InterruptHandler (the command's) so that it gets them. Not thread-safe except wake().
class ChatInput {
public:
  // `history` is the history file (empty: none); its last 1000 lines are loaded for the up arrow.
  explicit ChatInput(const std::filesystem::path& history = {}, int in_fd = 0, int out_fd = 1);
  ~ChatInput();
  ChatInput(const ChatInput&) = delete;
  ChatInput& operator=(const ChatInput&) = delete;

  // True when `in_fd` is a terminal: lines are edited after a prompt.
  bool interactive() const { return m_editor != nullptr; }

  // Blocks until a line is typed (the prompt is shown on a terminal only), or a signal, a wake()
  // or the end of the input. On a terminal the cursor is at the start of a new line after any
  // event, and a half-typed line is dropped. Without one, a last line without a newline comes as
  // a line before `end`, "\r\n" ends a line as "\n" does, and lines may be of any length.
  // Signals come first, then wake(), then input. A woken may be left over from a wake() made
  // while nobody waited: callers check what they were woken for.
  InputEvent read(std::string_view prompt);
  // Like read() without reading input (what is typed meanwhile waits for the next read()):
  // blocks until interrupt, terminate or woken.
  InputEvent wait();
  // Ends the read() or wait() in progress with `woken`, or else the next one. Any thread.
  void wake();
  // `hook` is called on the reading thread before what is typed shows on the terminal (before
  // each key is read) and before a read that ends without a line ends it (the "^C"): what else
  // draws on that screen (a status line) gets out of the way first.
  void before_typing_shows(std::function<void()> hook) { m_before_typing = std::move(hook); }
  // Adds `line` to what the up arrow recalls and appends it to the history file at once; a blank
  // line is not kept.
  void remember(const std::string& line);

private:
  // Waits for a signal, a wake() or (if `with_input`) input to read, which comes as `line`;
  // nothing after `timeout_ms` (-1: forever).
  std::optional<InputEvent::Kind> wait_for(bool with_input, int timeout_ms);
  InputEvent read_script();
  InputEvent read_terminal(std::string_view prompt);

  int m_in_fd;
  int m_out_fd;
  int m_wake_fd = -1; // an eventfd
  InterruptPipe m_signals;
  HistoryFile m_history;
  std::unique_ptr<LineEditor> m_editor;         // null without a terminal
  std::optional<InputEvent::Kind> m_stopped_by; // why the line editor's wait ended
  std::function<void()> m_before_typing;
  std::string m_buffer; // script input read and not yet returned
  bool m_input_ended = false;
};

} // namespace ralph::cli
