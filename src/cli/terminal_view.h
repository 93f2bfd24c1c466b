#pragma once

#include "ralph/core/event.h"

#include <cstdio>
#include <string>

namespace ralph::cli {

struct TerminalOptions {
  bool stream_text = true; // model text to `out` as it arrives (off with --json)
  bool progress = true;    // tool calls, retries and errors to `err` (off with --quiet)
  bool color = false;
};

// Renders events for a person: the model's text streams to `out`, everything else (tool calls
// and their outcome, retries, warnings) goes to `err` one line each, so piping stdout keeps
// only the answer. Single-threaded, like the agent that emits the events.
class TerminalView final : public EventSink {
public:
  TerminalView(std::FILE* out, std::FILE* err, TerminalOptions options);
  void on_event(const Event& event) override;

  // Prints a progress line on `err` (ends any open text line first).
  void note(const std::string& line);

  // True when text of the latest model call reached `out` (so the answer was shown).
  bool answer_shown() const { return m_streamed_this_step; }
  // True when an error event with this message was shown (so it need not be said again).
  bool error_shown(const std::string& message) const { return m_last_error == message; }

  // True when stderr is a terminal that accepts colour (and NO_COLOR is unset).
  static bool color_wanted(std::FILE* err);

private:
  struct Show; // the rendering of each kind of event

  void end_text_line();
  std::string paint(const char* code, const std::string& text) const;

  std::FILE* m_out;
  std::FILE* m_err;
  TerminalOptions m_options;
  bool m_text_line_open = false; // `out` holds text not yet ended by a newline
  bool m_thinking_shown = false;
  bool m_streamed_this_step = false; // text of the current model call reached `out`
  std::string m_last_error;          // the message of the last error event shown
};

} // namespace ralph::cli
