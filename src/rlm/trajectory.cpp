#include "rlm/trajectory.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <vector>

namespace ralph::rlm {
namespace {

std::string render_step(const TrajectoryStep& step, std::size_t number) {
  std::string text = fmt::format("--- execution {} (model turn {}{}) ---\n", number, step.step,
                                 step.failed ? ", failed" : "");
  if (!trim(step.note).empty()) {
    text += fmt::format("model's note: {}\n", trim(step.note));
  }
  text += fmt::format("code:\n{}\noutput:\n{}\n", trim(step.code),
                      trim(step.output).empty() ? "(no output)" : trim(step.output));
  return text;
}

} // namespace

std::string render_trajectory(std::span<const TrajectoryStep> steps, std::size_t max_chars) {
  if (steps.empty()) {
    return "(no code was run in this attempt)\n";
  }
  std::vector<std::string> rendered;
  rendered.reserve(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    rendered.push_back(render_step(steps[i], i + 1));
  }
  // Walk back from the newest while the steps fit.
  std::size_t first_kept = rendered.size();
  std::size_t used = 0;
  while (first_kept > 0) {
    const std::size_t size = utf8_length(rendered[first_kept - 1]);
    if (used + size > max_chars) {
      break;
    }
    used += size;
    --first_kept;
  }
  // Not even the newest step fits: it is the most useful one, so it keeps what fits of it.
  const bool newest_too_big = first_kept == rendered.size();
  if (newest_too_big) {
    first_kept = rendered.size() - 1;
  }
  std::string out;
  if (first_kept > 0) {
    std::size_t dropped_chars = 0;
    for (std::size_t i = 0; i < first_kept; ++i) {
      dropped_chars += utf8_length(rendered[i]);
    }
    out += fmt::format("[the first {} executions ({} characters) are left out to fit; the {} "
                       "most recent follow]\n",
                       first_kept, dropped_chars, rendered.size() - first_kept);
  }
  if (newest_too_big) {
    return out + keep_head_and_tail(rendered.back(), max_chars);
  }
  for (std::size_t i = first_kept; i < rendered.size(); ++i) {
    out += rendered[i];
  }
  return out;
}

} // namespace ralph::rlm
