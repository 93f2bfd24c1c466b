#pragma once

#include "ralph/app/batch/batch.h"

#include <cstddef>
#include <string>

namespace ralph::cli {

// A batch on stderr: a line per goal that starts (unless the live display shows it) and per goal
// that finishes, journal errors, and on a terminal the live display (batch_view's live_lines),
// redrawn under each line. `quiet`: errors only.
class BatchTerminal final : public app::BatchObserver {
public:
  BatchTerminal(bool quiet, bool live) : m_quiet(quiet), m_live(live) {}

  void batch_started(const app::BatchStart& start) override;
  void goal_started(const app::GoalStart& goal) override;
  void goal_finished(const app::FinishedGoal& goal) override;
  void goal_stopped(const std::string& id, const session::SessionReport& report) override;
  void progress(const app::BatchProgress& progress) override;
  void journal_error(const Error& error) override;
  // Takes the live display off the screen, leaving an empty line.
  void close();

private:
  void say(const std::string& line);

  bool m_quiet = false;
  bool m_live = false;
  std::size_t m_drawn = 0; // rows of the live display on screen
};

} // namespace ralph::cli
