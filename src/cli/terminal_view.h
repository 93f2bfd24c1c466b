#pragma once

#include "ralph/core/event.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace ralph::cli {

struct TerminalOptions {
  bool stream_text = true; // model text to `out` as it arrives (off with --json)
  bool progress = true;    // tool calls, retries and errors to `err` (off with --quiet)
  bool color = false;
  // `err` is a terminal that redraws: one live status line (spinner, phase, elapsed time, tokens)
  // while the model, a tool, a verifier or a sandbox works longer than a moment.
  bool live = false;
  // Without a live line: a plain progress line this often during a long phase; 0: never.
  std::chrono::milliseconds progress_interval{8000};
};

// Renders events for a person: the model's text streams to `out`, everything else (tool calls
// and their outcome, retries, warnings) goes to `err` one line each, so piping stdout keeps
// only the answer. While something runs, a status line (or, off a terminal, a progress line now
// and then) says what, from a thread of its own; events arrive on the agent's thread.
class TerminalView final : public EventSink {
public:
  TerminalView(std::FILE* out, std::FILE* err, TerminalOptions options);
  ~TerminalView() override;
  TerminalView(const TerminalView&) = delete;
  TerminalView& operator=(const TerminalView&) = delete;

  void on_event(const Event& event) override;

  // Prints a progress line on `err` (ends any open text line first).
  void note(const std::string& line);
  // Prints a line on `err` that answers the person (a chat command's reply, its error), shown
  // even without progress.
  void reply(const std::string& line);
  // Prints `text` on `out`, what the person asked to see (ends any open text line and clears the
  // status line first, so the two never mix).
  void print(std::string_view text);

  // Clears the status line and draws no status (nor progress line) until resume_status(): the
  // person types on the screen it is drawn on. Any thread.
  void hold_status();
  void resume_status();

  // True when text of the latest model call reached `out` (so the answer was shown).
  bool answer_shown() const { return m_streamed_this_step; }
  // True when an error event with this message was shown (so it need not be said again).
  bool error_shown(const std::string& message) const { return m_last_error == message; }

  // True when stderr is a terminal that accepts colour (and NO_COLOR is unset).
  static bool color_wanted(std::FILE* err);
  // True when stderr is a terminal that can redraw a line (TERM is not "dumb").
  static bool live_wanted(std::FILE* err);

private:
  struct Show;  // the rendering of each kind of event
  struct Phase; // what each kind of event says about what runs now
  using steady = std::chrono::steady_clock;

  // With m_mutex held; a progress line unless `always`.
  void print_line(const std::string& line, bool always = false);
  void end_text_line();
  std::string paint(const char* code, const std::string& text) const;

  // What is running now, for the status line; empty phase: nothing worth a line.
  void set_phase(std::string_view phase);
  void show_verifying(); // the phase while verifiers run: their names
  void clear_status();
  void tick(); // the status thread's loop
  std::string status_text(steady::time_point now) const;

  std::FILE* m_out;
  std::FILE* m_err;
  TerminalOptions m_options;
  bool m_out_shares_screen = false; // `out` is a terminal too: no status line mid-text
  bool m_text_line_open = false;    // `out` holds text not yet ended by a newline
  bool m_thinking_shown = false;
  bool m_streamed_this_step = false; // text of the current model call reached `out`
  std::string m_last_error;          // the message of the last error event shown

  std::mutex m_mutex; // the two streams and everything below
  std::condition_variable m_wake;
  bool m_stopping = false;
  std::string m_phase;
  steady::time_point m_phase_since;
  steady::time_point m_last_progress;   // the last plain progress line
  std::vector<std::string> m_verifying; // verifiers running now
  int m_iteration = 0;
  int m_max_iterations = 0;
  std::int64_t m_tokens = 0; // every model call finished so far
  bool m_status_drawn = false;
  bool m_status_held = false;
  int m_frame = 0;
  std::thread m_status_thread; // last: started once the rest is ready
};

} // namespace ralph::cli
