#include "ralph/store/goal_queue.h"

#include <algorithm>

namespace ralph::store {

std::string_view to_string(GoalState state) {
  switch (state) {
  case GoalState::queued:
    return "queued";
  case GoalState::running:
    return "running";
  case GoalState::done:
    return "done";
  case GoalState::failed:
    return "failed";
  }
  return "queued";
}

int WorkerStatus::stale() const {
  return static_cast<int>(
      std::count_if(goals.begin(), goals.end(), [](const HeldGoal& goal) { return goal.stale; }));
}

GoalClaim claim_of(const QueuedGoal& goal) {
  return GoalClaim{.batch = goal.batch, .id = goal.id, .tries = goal.tries};
}

} // namespace ralph::store
