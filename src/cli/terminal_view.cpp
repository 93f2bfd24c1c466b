#include "cli/terminal_view.h"

#include "cli/tool_summary.h"

#include "ralph/core/text.h"
#include "ralph/core/time.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <sys/ioctl.h>
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

// US dollars with the digits that tell small amounts apart: $2.50, $0.50, $0.012, $0.0056.
std::string usd_text(double usd) {
  int decimals = 2;
  if (usd > 0 && usd < 0.1) {
    decimals = static_cast<int>(-std::floor(std::log10(usd))) + 1;
  }
  std::string text = fmt::format("{:.{}f}", usd, std::min(decimals, 8));
  const std::size_t cents = text.find('.') + 3; // at least two decimals stay
  while (text.size() > cents && text.back() == '0') {
    text.pop_back();
  }
  return "$" + text;
}

// A nearly spent budget, in words: how much of what is left.
std::string budget_words(const event::BudgetWarning& e) {
  switch (e.budget) {
  case BudgetKind::iterations:
    return fmt::format("last attempt ({:.0f} of {:.0f})", e.used + 1, e.limit);
  case BudgetKind::tokens:
    return fmt::format("{}% of the token budget used ({:.0f} of {:.0f} tokens)", e.percent, e.used,
                       e.limit);
  case BudgetKind::cost:
    // The percent stops at 100: an attempt can spend past the limit before it is stopped.
    return e.used > e.limit ? fmt::format("the cost budget is spent ({} of {})", usd_text(e.used),
                                          usd_text(e.limit))
                            : fmt::format("{}% of the cost budget used ({} of {})", e.percent,
                                          usd_text(e.used), usd_text(e.limit));
  case BudgetKind::time:
    return fmt::format("{}% of the time budget used ({:.0f} of {:.0f} s)", e.percent, e.used,
                       e.limit);
  default:
    return fmt::format("{}% of the {} budget used", e.percent, budget_name(e.budget));
  }
}

// "failing: 3 → 2 of 6 (pytest)": the verifier's own measure of progress since its last count;
// without "of N" when the runner did not say how many tests there were.
std::string describe_failing(const event::TestCounts& tests) {
  const std::string count = tests.failed_before
                                ? fmt::format("{} → {}", *tests.failed_before, tests.failed)
                                : fmt::format("{}", tests.failed);
  const std::string of = tests.total ? fmt::format(" of {}", *tests.total) : std::string();
  return fmt::format("    failing: {}{} ({})", count, of, tests.runner);
}

} // namespace

TerminalView::TerminalView(std::FILE* out, std::FILE* err, TerminalOptions options)
    : m_out(out), m_err(err), m_options(options), m_out_shares_screen(isatty(fileno(out)) != 0) {
  if (m_options.progress && (m_options.live || m_options.progress_interval.count() > 0)) {
    m_status_thread = std::thread([this] { tick(); });
  }
}

TerminalView::~TerminalView() {
  {
    const std::lock_guard lock(m_mutex);
    m_stopping = true;
    clear_status();
  }
  m_wake.notify_all();
  if (m_status_thread.joinable()) {
    m_status_thread.join();
  }
}

bool TerminalView::live_wanted(std::FILE* err) {
  const char* term = std::getenv("TERM");
  return isatty(fileno(err)) != 0 && (term == nullptr || std::strcmp(term, "dumb") != 0);
}

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
  const std::lock_guard lock(m_mutex);
  print_line(line);
}

void TerminalView::print(std::string_view text) {
  const std::lock_guard lock(m_mutex);
  clear_status();
  end_text_line();
  std::fwrite(text.data(), 1, text.size(), m_out);
  if (!text.empty() && text.back() != '\n') {
    std::fputc('\n', m_out);
  }
  std::fflush(m_out);
}

void TerminalView::hold_status() {
  const std::lock_guard lock(m_mutex);
  m_status_held = true;
  clear_status();
}

void TerminalView::resume_status() {
  const std::lock_guard lock(m_mutex);
  m_status_held = false;
}

void TerminalView::reply(const std::string& line) {
  const std::lock_guard lock(m_mutex);
  print_line(line, true);
}

void TerminalView::print_line(const std::string& line, bool always) {
  // The model's text line ends where a line would go, shown or not: with --quiet stdout reads
  // the same, the turns of the model on lines of their own.
  const bool shown = m_options.progress || always;
  if (shown) {
    clear_status();
  }
  end_text_line();
  if (!shown) {
    return;
  }
  fmt::print(m_err, "{}\n", line);
  std::fflush(m_err);
}

void TerminalView::set_phase(std::string_view phase) {
  if (phase == m_phase) {
    return;
  }
  const bool was_idle = m_phase.empty();
  m_phase = phase;
  m_phase_since = steady::now();
  m_last_progress = m_phase_since;
  if (was_idle) {
    m_wake.notify_all(); // the status thread sleeps while nothing runs
  }
}

void TerminalView::show_verifying() {
  set_phase(m_verifying.empty() ? std::string()
                                : fmt::format("verifying: {}", fmt::join(m_verifying, ", ")));
}

void TerminalView::clear_status() {
  if (m_status_drawn) {
    std::fputs("\r\x1b[K", m_err);
    std::fflush(m_err);
    m_status_drawn = false;
  }
}

std::string TerminalView::status_text(steady::time_point now) const {
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(now - m_phase_since);
  std::string text = m_phase;
  if (m_max_iterations > 1) {
    text = fmt::format("attempt {}/{} · {}", m_iteration, m_max_iterations, text);
  }
  text += " · " + format_duration(elapsed);
  if (m_tokens > 0) {
    text += fmt::format(" · {} tokens", m_tokens);
  }
  return text;
}

void TerminalView::tick() {
  // Long enough that quick steps never flash a line; a live line redraws often enough to move.
  constexpr auto k_moment = std::chrono::seconds(1);
  constexpr auto k_redraw = std::chrono::milliseconds(100);
  constexpr std::string_view k_frames[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
  const auto period = m_options.live ? k_redraw
                                     : std::min<std::chrono::milliseconds>(
                                           m_options.progress_interval, std::chrono::seconds(1)) /
                                           4;
  std::unique_lock lock(m_mutex);
  while (!m_stopping) {
    m_wake.wait(lock, [this] { return m_stopping || !m_phase.empty(); });
    m_wake.wait_for(lock, period);
    const auto now = steady::now();
    if (m_stopping || m_phase.empty() || m_status_held) {
      continue;
    }
    if (m_options.live) {
      // Text streaming to the same screen is progress enough; a line there would cut into it.
      if (now - m_phase_since < k_moment || (m_text_line_open && m_out_shares_screen)) {
        continue;
      }
      m_frame = (m_frame + 1) % static_cast<int>(std::size(k_frames));
      // One screen line, or erasing it would leave the wrapped part behind.
      winsize size{};
      const std::size_t columns =
          ioctl(fileno(m_err), TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : 80;
      const std::string text(utf8_prefix(status_text(now), std::max<std::size_t>(columns, 8) - 3));
      fmt::print(m_err, "\r\x1b[K{} {}", paint(k_cyan, std::string(k_frames[m_frame])),
                 paint(k_dim, text));
      std::fflush(m_err);
      m_status_drawn = true;
    } else if (now - m_last_progress >= m_options.progress_interval &&
               !(m_text_line_open && m_out_shares_screen)) {
      m_last_progress = now;
      fmt::print(m_err, "  … {}\n", status_text(now));
      std::fflush(m_err);
    }
  }
}

struct TerminalView::Show {
  TerminalView& view;
  const Event& event;

  void note(const std::string& line) const { view.print_line(line); }
  std::string paint(const char* code, const std::string& text) const {
    return view.paint(code, text);
  }

  void operator()(const event::TextDelta& e) const {
    if (view.m_options.stream_text && !e.text.empty()) {
      if (view.m_out_shares_screen) {
        view.clear_status();
      }
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
  void operator()(const event::ModelStarted& e) const {
    view.m_thinking_shown = false;
    view.m_streamed_this_step = false;
    if (!e.agent.empty()) {
      note(fmt::format("{} {}", paint(k_cyan, "  ▸"), paint(k_dim, e.agent + " is working")));
    }
  }
  // Shown on the status line only: a log of every step would bury the calls themselves.
  void operator()(const event::ToolProgress&) const {}
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
  void operator()(const event::AgentLimitWait& e) const {
    // The time of day alone is enough within a day; a weekly limit needs the date.
    const std::tm utc = fmt::gmtime(std::chrono::system_clock::to_time_t(e.resets_at));
    const std::string when = e.wait < std::chrono::hours(20)
                                 ? fmt::format("{:%H:%M}", utc)
                                 : fmt::format("{:%Y-%m-%d %H:%M}", utc);
    note(paint(k_yellow, fmt::format("{}'s usage limit is reached; waiting until {} UTC (resets "
                                     "then, in {}) ...",
                                     e.agent, when, short_age(e.wait))));
  }
  void operator()(const event::Failure& e) const {
    note(paint(k_red, "error: " + e.message));
    if (view.m_options.progress) {
      view.m_last_error = e.message;
    }
  }
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
    note(paint(k_yellow, "  · " + budget_words(e)));
  }
  void operator()(const event::ModelFinished&) const {}
  void operator()(const event::VerifierStarted&) const {}
  void operator()(const event::RunEnded&) const {}
  void operator()(const event::AttemptsRanked&) const {} // the best-of view says it in full
};

// What each event says about what runs now.
struct TerminalView::Phase {
  TerminalView& view;
  const Event& event;

  void operator()(const event::AttemptStarted& e) const {
    view.m_iteration = event.iteration;
    view.m_max_iterations = e.max_iterations;
  }
  void operator()(const event::ModelStarted& e) const {
    view.set_phase(e.agent.empty() ? std::string("waiting for the model")
                                   : e.agent + " is working");
  }
  void operator()(const event::ThinkingDelta&) const { view.set_phase("the model is thinking"); }
  void operator()(const event::TextDelta&) const { view.set_phase("the model is writing"); }
  void operator()(const event::ModelFinished& e) const {
    view.m_tokens += e.usage.total_tokens();
    view.set_phase({});
  }
  void operator()(const event::ToolStarted& e) const {
    view.set_phase(fmt::format("running {} {}", e.call.name,
                               summarize_arguments(e.call.name, e.call.arguments, 60)));
  }
  void operator()(const event::ToolProgress& e) const {
    const std::string amount =
        e.total ? fmt::format("{:g}/{:g}", e.progress, *e.total) : fmt::format("{:g}", e.progress);
    view.set_phase(
        fmt::format("running {} {}{}", e.tool, amount,
                    e.message.empty() ? std::string() : " " + first_line(e.message, 60)));
  }
  void operator()(const event::VerifierStarted& e) const {
    view.m_verifying.push_back(e.verifier);
    view.show_verifying();
  }
  void operator()(const event::VerdictGiven& e) const {
    const auto done = std::find(view.m_verifying.begin(), view.m_verifying.end(), e.verifier);
    if (done != view.m_verifying.end()) {
      view.m_verifying.erase(done);
    }
    view.show_verifying();
    view.m_tokens += e.usage.total_tokens();
  }
  void operator()(const event::ToolFinished&) const { view.set_phase({}); }
  void operator()(const event::Retry& e) const {
    view.set_phase(fmt::format("waiting to retry ({})", first_line(e.reason, 60)));
  }
  void operator()(const event::AttemptFinished&) const { view.set_phase({}); }
  void operator()(const event::RunEnded&) const { view.set_phase({}); }
  template <typename Other> void operator()(const Other&) const {}
};

void TerminalView::on_event(const Event& event) {
  const std::lock_guard lock(m_mutex);
  std::visit(Show{*this, event}, event.payload);
  std::visit(Phase{*this, event}, event.payload);
}

} // namespace ralph::cli
