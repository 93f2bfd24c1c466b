#include "cli/terminal_view.h"

#include "cli/tool_summary.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unistd.h>

namespace ralph::cli {
namespace {

constexpr const char* k_dim = "2";
constexpr const char* k_red = "31";
constexpr const char* k_green = "32";
constexpr const char* k_yellow = "33";
constexpr const char* k_cyan = "36";
constexpr const char* k_bold = "1";
constexpr int k_verdict_lines = 8;
constexpr std::size_t k_argument_width = 100;
constexpr int k_shell_tail_lines = 3;

std::string format_duration(std::int64_t ms) {
  if (ms < 1000) {
    return fmt::format("{} ms", ms);
  }
  return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
}

} // namespace

TerminalView::TerminalView(std::FILE* out, std::FILE* err, TerminalOptions options)
    : m_out(out), m_err(err), m_options(options) {}

bool TerminalView::color_wanted(std::FILE* err) {
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return isatty(fileno(err)) != 0 && (no_color == nullptr || *no_color == '\0') &&
         (term == nullptr || std::strcmp(term, "dumb") != 0);
}

std::string TerminalView::paint(const char* code, const std::string& text) const {
  if (!m_options.color) {
    return text;
  }
  return fmt::format("\x1b[{}m{}\x1b[0m", code, text);
}

void TerminalView::end_text_line() {
  if (m_text_line_open) {
    std::fputc('\n', m_out);
    std::fflush(m_out);
    m_text_line_open = false;
  }
}

void TerminalView::note(const std::string& line) {
  if (!m_options.progress) {
    return;
  }
  end_text_line();
  fmt::print(m_err, "{}\n", line);
  std::fflush(m_err);
}

void TerminalView::show_verdict(const Event& event) {
  const std::string duration = format_duration(event.duration_ms);
  if (event.result == "pass") {
    note(fmt::format("{} {} {}", paint(k_green, "  ✓"), event.name,
                     paint(k_dim, fmt::format("pass · {}", duration))));
    return;
  }
  const bool error = event.result == "error";
  note(fmt::format("{} {} {} {}", paint(error ? k_yellow : k_red, error ? "  !" : "  ✗"),
                   event.name,
                   paint(error ? k_yellow : k_red,
                         fmt::format("{} {}{}", event.result, event.category,
                                     event.detail.empty() ? "" : " (" + event.detail + ")")),
                   paint(k_dim, duration)));
  // The reason, and for commands the start of the excerpt, so the failure is readable here.
  std::size_t start = 0;
  for (int shown = 0; shown < k_verdict_lines && start < event.text.size(); ++shown) {
    const std::size_t end = std::min(event.text.find('\n', start), event.text.size());
    note(paint(k_dim, "    │ " + first_line(event.text.substr(start, end - start), 160)));
    start = end + 1;
  }
}

void TerminalView::on_event(const Event& event) {
  switch (event.type) {
  case EventType::text_delta:
    if (m_options.stream_text && !event.text.empty()) {
      std::fwrite(event.text.data(), 1, event.text.size(), m_out);
      std::fflush(m_out);
      m_text_line_open = event.text.back() != '\n';
      m_streamed_this_step = true;
    }
    return;
  case EventType::thinking_delta:
    if (!m_thinking_shown) {
      m_thinking_shown = true;
      note(paint(k_dim, "  … thinking"));
    }
    return;
  case EventType::model_started:
    m_thinking_shown = false;
    m_streamed_this_step = false;
    return;
  case EventType::tool_started:
    note(fmt::format("{} {} {}", paint(k_cyan, "  →"), event.name,
                     paint(k_dim, summarize_arguments(event.name, event.text, k_argument_width))));
    return;
  case EventType::tool_finished: {
    const std::string duration = format_duration(event.duration_ms);
    if (event.is_error) {
      note(fmt::format("{} {} {} {}", paint(k_red, "  ✗"), event.name,
                       first_line(event.text, k_argument_width), paint(k_dim, duration)));
    } else if (event.name == "shell") {
      const int exit_code = event.exit_code.value_or(-1);
      const char* colour = exit_code == 0 ? k_green : k_yellow;
      const std::string tail = output_tail(event.text, k_shell_tail_lines);
      for (std::size_t start = 0; start < tail.size();) {
        const std::size_t end = std::min(tail.find('\n', start), tail.size());
        note(paint(k_dim, "    │ " + tail.substr(start, end - start)));
        start = end + 1;
      }
      note(fmt::format("{} {} {}", paint(colour, exit_code == 0 ? "  ✓" : "  •"), event.name,
                       paint(k_dim, fmt::format("exit {} · {}", exit_code, duration))));
    } else {
      note(fmt::format("{} {} {}", paint(k_green, "  ✓"), event.name,
                       paint(k_dim, fmt::format("{} · {}", first_line(event.text, 60), duration))));
    }
    return;
  }
  case EventType::retry:
    // A retry after text was shown replaces that text: say so, or the reader takes it as part
    // of the answer.
    note(paint(k_yellow, fmt::format("  ↻ {}{}; retry {} in {}", event.detail,
                                     m_streamed_this_step ? " (the text above is discarded)" : "",
                                     event.number, format_duration(event.duration_ms))));
    m_streamed_this_step = false;
    return;
  case EventType::warning:
    note(paint(k_yellow, "warning: " + event.text));
    return;
  case EventType::error:
    note(paint(k_red, "error: " + event.text));
    return;
  case EventType::agent_finished:
    end_text_line();
    return;
  case EventType::attempt_started:
    if (event.number > 1) {
      note(paint(k_bold, fmt::format("── attempt {} of {} ──", event.iteration, event.number)));
    }
    return;
  case EventType::attempt_finished:
    end_text_line();
    return;
  case EventType::verification_skipped:
    note(paint(k_dim, "  · not verified: " + event.detail));
    return;
  case EventType::verdict:
    show_verdict(event);
    return;
  case EventType::feedback:
    note(paint(k_cyan, fmt::format("  ↩ feedback ({}): ", event.detail)) +
         first_line(event.text, k_argument_width));
    return;
  case EventType::budget_warning:
    note(paint(k_yellow, fmt::format("  ! {}% of the {} budget used", event.number, event.detail)));
    return;
  case EventType::run_started:
  case EventType::model_finished:
  case EventType::verifier_started:
  case EventType::status:
    return;
  }
}

} // namespace ralph::cli
