#pragma once

#include "ralph/core/clock.h"
#include "ralph/store/goal_queue.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ralph::testing {

// The goal queue's contract in memory, its leases on an injected clock (a FakeClock: a lease
// runs out when the test moves time on, never on its own). What the PostgreSQL queue does with
// rows it does with a map, under one mutex; it also remembers when each renewal came.
class FakeGoalQueue final : public store::GoalQueue {
public:
  explicit FakeGoalQueue(const Clock& clock) : m_clock(clock) {}

  Result<store::EnqueueOutcome> enqueue(const std::string& batch, const std::string& settings_json,
                                        const std::vector<store::GoalSpec>& goals) override {
    const std::lock_guard lock(m_mutex);
    if (m_batches.find(batch) == m_batches.end()) {
      m_batches.emplace(batch, Batch{.settings_json = settings_json, .order = m_next_batch++});
    }
    store::EnqueueOutcome outcome;
    for (const store::GoalSpec& spec : goals) {
      const auto found = m_goals.find({batch, spec.id});
      if (found == m_goals.end()) {
        m_goals.emplace(std::pair(batch, spec.id), Goal{.row = {.batch = batch,
                                                                .id = spec.id,
                                                                .seq = ++m_next_seq,
                                                                .spec_json = spec.spec_json}});
        outcome.added.push_back(spec.id);
      } else if (found->second.row.spec_json == spec.spec_json) {
        outcome.already.push_back(spec.id);
      } else {
        outcome.conflicts.push_back(spec.id);
      }
    }
    return outcome;
  }

  Result<std::vector<store::QueuedGoal>> claim(const std::string& worker, int max,
                                               std::chrono::milliseconds lease) override {
    const std::lock_guard lock(m_mutex);
    std::vector<Goal*> open;
    for (auto& [key, goal] : m_goals) {
      if (goal.row.state == store::GoalState::queued || stale(goal)) {
        open.push_back(&goal);
      }
    }
    std::sort(open.begin(), open.end(),
              [](const Goal* a, const Goal* b) { return a->row.seq < b->row.seq; });
    std::vector<store::QueuedGoal> claimed;
    for (Goal* goal : open) {
      if (static_cast<int>(claimed.size()) >= max) {
        break;
      }
      goal->row.state = store::GoalState::running;
      goal->row.worker = worker;
      ++goal->row.tries;
      hold(*goal, lease);
      store::QueuedGoal row = goal->row;
      row.settings_json = m_batches[row.batch].settings_json;
      row.checkpoint = goal->checkpoint;
      claimed.push_back(std::move(row));
    }
    return claimed;
  }

  Result<std::vector<store::GoalClaim>> renew(const std::string& worker,
                                              const std::vector<store::GoalClaim>& claims,
                                              std::chrono::milliseconds lease) override {
    std::vector<store::GoalClaim> lost;
    std::size_t renewals = 0;
    {
      const std::lock_guard lock(m_mutex);
      m_renewals.push_back(m_clock.now());
      renewals = m_renewals.size();
      for (const store::GoalClaim& claim : claims) {
        Goal* goal = held(worker, claim);
        if (goal == nullptr) {
          lost.push_back(claim);
          continue;
        }
        hold(*goal, lease);
      }
    }
    if (on_renew) {
      on_renew(renewals);
    }
    return lost;
  }

  Result<bool> finish(const std::string& worker, const store::GoalClaim& claim,
                      const store::GoalOutcome& outcome) override {
    const std::lock_guard lock(m_mutex);
    if (Goal* goal = held(worker, claim)) {
      store::QueuedGoal& row = goal->row;
      row.state = outcome.completed ? store::GoalState::done : store::GoalState::failed;
      row.status = outcome.status;
      row.session_id = outcome.session_id;
      row.result_json = outcome.result_json;
      row.verified = outcome.verified;
      row.lease_until.clear();
      spend(row, outcome.spent);
      return true;
    }
    // Finished by this very claim already (a retried call): still one result.
    const auto found = m_goals.find({claim.batch, claim.id});
    return found != m_goals.end() && found->second.row.tries == claim.tries &&
           found->second.row.worker == worker && finished(found->second) &&
           found->second.row.result_json == outcome.result_json;
  }

  Result<bool> release(const std::string& worker, const store::GoalClaim& claim,
                       const store::GoalSpent& spent) override {
    const std::lock_guard lock(m_mutex);
    Goal* goal = held(worker, claim);
    if (goal == nullptr) {
      return false;
    }
    goal->row.state = store::GoalState::queued;
    goal->row.lease_until.clear();
    spend(goal->row, spent);
    return true;
  }

  Result<bool> set_session(const std::string& worker, const store::GoalClaim& claim,
                           const std::string& session_id) override {
    const std::lock_guard lock(m_mutex);
    Goal* goal = held(worker, claim);
    if (goal != nullptr) {
      goal->row.session_id = session_id;
    }
    return goal != nullptr;
  }

  Result<bool> save_checkpoint(const std::string& worker, const store::GoalClaim& claim,
                               const std::string& patch) override {
    const std::lock_guard lock(m_mutex);
    Goal* goal = held(worker, claim);
    if (goal != nullptr) {
      goal->checkpoint = patch;
    }
    return goal != nullptr;
  }

  Result<std::optional<store::QueueStatus>> status(const std::string& batch) override {
    const auto all = batches();
    for (const store::QueueStatus& status : *all) {
      if (status.batch == batch) {
        return status;
      }
    }
    return std::nullopt;
  }

  Result<std::vector<store::QueueStatus>> batches() override {
    const std::lock_guard lock(m_mutex);
    std::vector<std::pair<int, std::string>> order;
    for (const auto& [name, batch] : m_batches) {
      order.emplace_back(batch.order, name);
    }
    std::sort(order.begin(), order.end());
    std::vector<store::QueueStatus> out;
    for (const auto& [index, name] : order) {
      store::QueueStatus status{.batch = name, .created_at = std::to_string(index)};
      for (const auto& [key, goal] : m_goals) {
        if (key.first == name) {
          count(goal, status);
        }
      }
      out.push_back(std::move(status));
    }
    return out;
  }

  Result<std::vector<store::QueuedGoal>> goals(const std::string& batch,
                                               bool finished_only) override {
    const std::lock_guard lock(m_mutex);
    std::vector<store::QueuedGoal> out;
    for (const auto& [key, goal] : m_goals) {
      if (key.first == batch && (!finished_only || finished(goal))) {
        out.push_back(goal.row);
      }
    }
    std::sort(out.begin(), out.end(),
              [](const store::QueuedGoal& a, const store::QueuedGoal& b) { return a.seq < b.seq; });
    return out;
  }

  Result<bool> has_work() override {
    const std::lock_guard lock(m_mutex);
    return std::any_of(m_goals.begin(), m_goals.end(),
                       [](const auto& entry) { return !finished(entry.second); });
  }

  Result<std::vector<store::WorkerStatus>> workers() override {
    const std::lock_guard lock(m_mutex);
    std::vector<const Goal*> running;
    for (const auto& [key, goal] : m_goals) {
      if (goal.row.state == store::GoalState::running) {
        running.push_back(&goal);
      }
    }
    std::sort(running.begin(), running.end(), [](const Goal* a, const Goal* b) {
      return std::tie(a->row.worker, a->row.seq) < std::tie(b->row.worker, b->row.seq);
    });
    std::vector<store::WorkerStatus> out;
    for (const Goal* goal : running) {
      if (out.empty() || out.back().name != goal->row.worker) {
        out.push_back(
            store::WorkerStatus{.name = goal->row.worker, .goals = {}, .heartbeat_age_ms = {}});
      }
      store::WorkerStatus& worker = out.back();
      worker.goals.push_back(store::HeldGoal{.batch = goal->row.batch,
                                             .id = goal->row.id,
                                             .lease_until = goal->row.lease_until,
                                             .stale = stale(*goal)});
      const std::int64_t age =
          std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - goal->renewed_at)
              .count();
      worker.heartbeat_age_ms = std::min(worker.heartbeat_age_ms.value_or(age), age);
    }
    return out;
  }

  // Called after each renew call with the number of calls so far, on the caller's thread.
  std::function<void(std::size_t)> on_renew;

  // When each renew call came, on the clock.
  std::vector<Clock::time_point> renewals() const {
    const std::lock_guard lock(m_mutex);
    return m_renewals;
  }

private:
  struct Batch {
    std::string settings_json;
    int order = 0;
  };
  struct Goal {
    store::QueuedGoal row;
    Clock::time_point lease_until;
    Clock::time_point renewed_at; // its last claim or renewal
    std::string checkpoint;
  };

  static void spend(store::QueuedGoal& row, const store::GoalSpent& spent) {
    row.tokens = spent.tokens;
    row.cost_usd = spent.cost_usd;
    row.cost_known = spent.cost_known;
  }
  static bool finished(const Goal& goal) {
    return goal.row.state == store::GoalState::done || goal.row.state == store::GoalState::failed;
  }
  bool stale(const Goal& goal) const {
    return goal.row.state == store::GoalState::running && goal.lease_until < m_clock.now();
  }
  void hold(Goal& goal, std::chrono::milliseconds lease) const {
    goal.renewed_at = m_clock.now();
    goal.lease_until = m_clock.now() + lease;
    goal.row.lease_until = std::to_string(
        std::chrono::duration_cast<std::chrono::milliseconds>(goal.lease_until.time_since_epoch())
            .count());
  }
  // The goal, when `worker` holds it by `claim` (its latest claim); null otherwise.
  Goal* held(const std::string& worker, const store::GoalClaim& claim) {
    const auto found = m_goals.find({claim.batch, claim.id});
    if (found == m_goals.end() || found->second.row.tries != claim.tries ||
        found->second.row.worker != worker ||
        found->second.row.state != store::GoalState::running) {
      return nullptr;
    }
    return &found->second;
  }
  void count(const Goal& goal, store::QueueStatus& status) const {
    const store::QueuedGoal& row = goal.row;
    switch (row.state) {
    case store::GoalState::queued:
      ++status.queued; // given back, it still counts what its session spent, as PostgreSQL's
      break;
    case store::GoalState::running:
      ++status.running;
      ++status.running_by_worker[row.worker];
      status.stale += stale(goal) ? 1 : 0;
      break;
    case store::GoalState::done:
    case store::GoalState::failed:
      ++(row.state == store::GoalState::done ? status.done : status.failed);
      ++status.statuses[row.status];
      break;
    }
    status.verified += row.verified ? 1 : 0;
    status.tokens += row.tokens;
    status.cost_usd += row.cost_usd;
    status.cost_known = status.cost_known && row.cost_known;
  }

  const Clock& m_clock;
  mutable std::mutex m_mutex;
  std::map<std::string, Batch> m_batches;
  std::map<std::pair<std::string, std::string>, Goal> m_goals;
  std::int64_t m_next_seq = 0;
  int m_next_batch = 0;
  std::vector<Clock::time_point> m_renewals;
};

} // namespace ralph::testing
