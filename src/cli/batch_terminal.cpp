#include "cli/batch_terminal.h"

#include "cli/batch_view.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <cstdio>
#include <sys/ioctl.h>
#include <unistd.h>

namespace ralph::cli {
namespace {

std::size_t terminal_width() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  return 100;
}

// Moves up over the `rows` of the live display, erasing them.
std::string erase_rows(std::size_t rows) {
  std::string erase = "\r\x1b[2K";
  for (std::size_t i = 1; i < rows; ++i) {
    erase += "\x1b[1A\x1b[2K";
  }
  return erase;
}

} // namespace

void BatchTerminal::batch_started(const app::BatchStart& start) {
  if (!m_quiet) {
    say(fmt::format("ralph {} · batch {} · {} goal(s), {} finished already · concurrency {} · {}",
                    RALPH_VERSION, start.batch_id, start.goals, start.finished, start.concurrency,
                    start.dir.string()));
  }
}

void BatchTerminal::goal_started(const app::GoalStart& goal) {
  if (!m_live && !m_quiet) {
    say(fmt::format("[{}/{}] {} {} · {}", goal.position, goal.goals,
                    goal.resumed ? "resumed" : "started", goal.id, goal.workspace.string()));
  }
}

void BatchTerminal::goal_finished(const app::FinishedGoal& goal) {
  if (m_quiet) {
    return;
  }
  const session::SessionReport& report = goal.report;
  say(fmt::format("[{}/{}] {} {}{} · {} attempt(s) · {} s{}", goal.finished, goal.goals, goal.id,
                  to_string(report.status), report.verified ? ", verified" : "", report.iterations,
                  report.duration_ms / 1000,
                  report.status == Status::completed || report.reason.empty()
                      ? std::string()
                      : " · " + first_line(report.reason, 200)));
}

void BatchTerminal::goal_stopped(const std::string& /*id*/,
                                 const session::SessionReport& /*report*/) {
  // Said by the summary's "unfinished" count.
}

void BatchTerminal::progress(const app::BatchProgress& progress) {
  if (!m_live) {
    return;
  }
  const std::vector<std::string> lines = live_lines(progress, terminal_width());
  std::string out = erase_rows(m_drawn);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += (i > 0 ? "\n" : "") + lines[i];
  }
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
  m_drawn = lines.size();
}

void BatchTerminal::journal_error(const Error& error) {
  say(fmt::format("ralph: error: {}", error.message));
}

void BatchTerminal::close() {
  if (m_live) {
    say("");
  }
}

// A line above the live display (which is drawn again under it).
void BatchTerminal::say(const std::string& line) {
  if (m_live && m_drawn > 0) {
    std::fputs(erase_rows(m_drawn).c_str(), stderr);
    m_drawn = 0;
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

} // namespace ralph::cli
