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
constexpr std::size_t k_verdict_lines = 8;
constexpr std::size_t k_argument_width = 100;
constexpr int k_shell_tail_lines = 3;

std::string format_duration(std::chrono::milliseconds duration) {
  const std::int64_t ms = duration.count();
  if (ms < 1000) {
    return fmt::format("{} ms", ms);
  }
  return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
}

// "failing: 3 → 2 of 6 (pytest)": the verifier's own measure of progress since its last count.
std::string describe_failing(const event::TestCounts& tests) {
  const std::string count = tests.failed_before
                                ? fmt::format("{} → {}", *tests.failed_before, tests.failed)
                                : fmt::format("{}", tests.failed);
  return fmt::format("    failing: {} of {} ({})", count, tests.total, tests.runner);
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

struct TerminalView::Show {
  TerminalView& view;
  const Event& event;

  void note(const std::string& line) const { view.note(line); }
  std::string paint(const char* code, const std::string& text) const {
    return view.paint(code, text);
  }

  void operator()(const event::TextDelta& e) const {
    if (view.m_options.stream_text && !e.text.empty()) {
      std::fwrite(e.text.data(), 1, e.text.size(), view.m_out);
      std::fflush(view.m_out);
      view.m_text_line_open = e.text.back() != '\n';
      view.m_streamed_this_step = true;
    }
  }
  void operator()(const event::ThinkingDelta&) const {
    if (!view.m_thinking_shown) {
      view.m_thinking_shown = true;
      note(paint(k_dim, "  … thinking"));
    }
  }
  void operator()(const event::ModelStarted&) const {
    view.m_thinking_shown = false;
    view.m_streamed_this_step = false;
  }
  void operator()(const event::ToolStarted& e) const {
    note(fmt::format(
        "{} {} {}", paint(k_cyan, "  →"), e.call.name,
        paint(k_dim, summarize_arguments(e.call.name, e.call.arguments, k_argument_width))));
  }
  void operator()(const event::ToolFinished& e) const {
    const std::string duration = format_duration(e.duration);
    if (e.is_error) {
      note(fmt::format("{} {} {} {}", paint(k_red, "  ✗"), e.call.name,
                       first_line(e.result, k_argument_width), paint(k_dim, duration)));
    } else if (e.exit_code) {
      const int exit_code = *e.exit_code;
      const char* colour = exit_code == 0 ? k_green : k_yellow;
      const std::string tail = output_tail(e.result, k_shell_tail_lines);
      for (const std::string_view line : split_lines(tail)) {
        note(paint(k_dim, fmt::format("    │ {}", line)));
      }
      note(fmt::format("{} {} {}", paint(colour, exit_code == 0 ? "  ✓" : "  •"), e.call.name,
                       paint(k_dim, fmt::format("exit {} · {}", exit_code, duration))));
    } else {
      note(fmt::format("{} {} {}", paint(k_green, "  ✓"), e.call.name,
                       paint(k_dim, fmt::format("{} · {}", first_line(e.result, 60), duration))));
    }
  }
  void operator()(const event::Retry& e) const {
    // A retry after text was shown replaces that text: say so, or the reader takes it as part
    // of the answer.
    note(paint(k_yellow,
               fmt::format("  ↻ {}{}; retry {} in {}", e.reason,
                           view.m_streamed_this_step ? " (the text above is discarded)" : "",
                           e.attempt, format_duration(e.delay))));
    view.m_streamed_this_step = false;
  }
  void operator()(const event::Warning& e) const { note(paint(k_yellow, "warning: " + e.text)); }
  void operator()(const event::Failure& e) const { note(paint(k_red, "error: " + e.message)); }
  void operator()(const event::AgentFinished&) const { view.end_text_line(); }
  void operator()(const event::AttemptStarted& e) const {
    if (e.max_iterations > 1) {
      note(paint(k_bold, fmt::format("── attempt {} of {} ──", event.iteration, e.max_iterations)));
    }
  }
  void operator()(const event::AttemptFinished&) const { view.end_text_line(); }
  void operator()(const event::VerificationSkipped& e) const {
    note(paint(k_dim, "  · not verified: " + e.reason));
  }
  void operator()(const event::VerdictGiven& e) const {
    const std::string duration = format_duration(e.duration);
    if (e.result == Outcome::pass) {
      note(fmt::format("{} {} {}", paint(k_green, "  ✓"), e.verifier,
                       paint(k_dim, fmt::format("pass · {}", duration))));
      if (e.tests) {
        note(paint(k_dim, describe_failing(*e.tests)));
      }
      return;
    }
    const bool error = e.result == Outcome::error;
    note(fmt::format("{} {} {} {}", paint(error ? k_yellow : k_red, error ? "  !" : "  ✗"),
                     e.verifier,
                     paint(error ? k_yellow : k_red,
                           fmt::format("{} {}{}", to_string(e.result), e.category,
                                       e.policy ? fmt::format(" ({})", to_string(*e.policy)) : "")),
                     paint(k_dim, duration)));
    if (e.tests) {
      const bool fewer = e.tests->failed_before && e.tests->failed < *e.tests->failed_before;
      note(paint(fewer ? k_green : k_dim, describe_failing(*e.tests)));
    }
    // The reason, and for commands the start of the excerpt, so the failure is readable here.
    const std::vector<std::string_view> lines = split_lines(e.feedback);
    for (std::size_t i = 0; i < lines.size() && i < k_verdict_lines; ++i) {
      note(paint(k_dim, "    │ " + first_line(lines[i], 160)));
    }
  }
  void operator()(const event::FeedbackGiven& e) const {
    note(paint(k_cyan, fmt::format("  ↩ feedback ({}): ", to_string(e.mode))) +
         first_line(e.text, k_argument_width));
  }
  void operator()(const event::BudgetWarning& e) const {
    note(paint(k_yellow,
               fmt::format("  ! {}% of the {} budget used", e.percent, to_string(e.budget))));
  }
  void operator()(const event::ModelFinished&) const {}
  void operator()(const event::VerifierStarted&) const {}
  void operator()(const event::RunEnded&) const {}
};

void TerminalView::on_event(const Event& event) {
  std::visit(Show{*this, event}, event.payload);
}

} // namespace ralph::cli
