#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace ralph::rlm {

// One execution of an attempt, as the fallback extraction is shown it.
struct TrajectoryStep {
  int step = 0;     // the model call that asked for it
  std::string note; // what the model wrote alongside the call (may be empty)
  std::string code;
  std::string output; // as the model was shown it
  bool failed = false;
};

// The steps as text, oldest first, within about `max_chars` code points: the most recent steps
// are kept whole, older ones are dropped with a line saying how many and how much; a most recent
// step larger than the whole budget keeps its head and tail. Empty steps: a line saying so.
std::string render_trajectory(std::span<const TrajectoryStep> steps, std::size_t max_chars);

} // namespace ralph::rlm
