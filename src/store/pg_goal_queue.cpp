#include "store/pg_db.h"
#include "store/pg_schema.h"

#include "ralph/core/try.h"
#include "ralph/store/goal_queue.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <mutex>
#include <set>

namespace ralph::store {
namespace {

using pg::Connection;
using pg::Params;
using pg::Rows;

// The columns read_goal() reads, in its order.
constexpr std::string_view k_columns =
    "g.batch, g.id, g.seq, g.spec_json, g.state, g.worker, "
    "coalesce(to_char(g.lease_until AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), ''), "
    "g.tries, g.session_id, g.status, g.result_json, g.verified, g.tokens, g.cost_usd, "
    "g.cost_known";
constexpr int k_column_count = 15; // of k_columns: what a query selects after them comes next

GoalState state_of(std::string_view text) {
  if (text == "running") {
    return GoalState::running;
  }
  if (text == "done") {
    return GoalState::done;
  }
  if (text == "failed") {
    return GoalState::failed;
  }
  return GoalState::queued;
}

QueuedGoal read_goal(const Rows& rows, int row) {
  return QueuedGoal{.batch = rows.text(row, 0),
                    .id = rows.text(row, 1),
                    .seq = rows.integer(row, 2),
                    .spec_json = rows.text(row, 3),
                    .state = state_of(rows.text(row, 4)),
                    .worker = rows.text(row, 5),
                    .lease_until = rows.text(row, 6),
                    .tries = static_cast<int>(rows.integer(row, 7)),
                    .session_id = rows.text(row, 8),
                    .status = rows.text(row, 9),
                    .result_json = rows.text(row, 10),
                    .verified = rows.boolean(row, 11),
                    .tokens = rows.integer(row, 12),
                    .cost_usd = rows.real(row, 13),
                    .cost_known = rows.boolean(row, 14)};
}

// $1 to $4 of every statement a claim's holder may run: the goal and the claim's fencing token.
Params held_by(const GoalClaim& claim, const std::string& worker) {
  Params params;
  params.add(claim.batch).add(claim.id).add(claim.tries).add(worker);
  return params;
}

// Claims as one JSON array parameter: [[batch, id, tries], ...].
std::string claims_json(const std::vector<GoalClaim>& claims) {
  nlohmann::json array = nlohmann::json::array();
  for (const GoalClaim& claim : claims) {
    array.push_back({claim.batch, claim.id, claim.tries});
  }
  return array.dump();
}

// The queue in PostgreSQL: one connection behind a mutex, lease times on the server's clock.
class PgGoalQueue final : public GoalQueue {
public:
  explicit PgGoalQueue(std::unique_ptr<pg::Connection> db) : m_db(std::move(db)) {}

  Result<EnqueueOutcome> enqueue(const std::string& batch, const std::string& settings_json,
                                 const std::vector<GoalSpec>& goals) override;
  Result<std::vector<QueuedGoal>> claim(const std::string& worker, int max,
                                        std::chrono::milliseconds lease) override;
  Result<std::vector<GoalClaim>> renew(const std::string& worker,
                                       const std::vector<GoalClaim>& claims,
                                       std::chrono::milliseconds lease) override;
  Result<bool> finish(const std::string& worker, const GoalClaim& claim,
                      const GoalOutcome& outcome) override;
  Result<bool> release(const std::string& worker, const GoalClaim& claim,
                       const GoalSpent& spent) override;
  Result<bool> set_session(const std::string& worker, const GoalClaim& claim,
                           const std::string& session_id) override;
  Result<bool> save_checkpoint(const std::string& worker, const GoalClaim& claim,
                               const std::string& patch) override;
  Result<std::optional<QueueStatus>> status(const std::string& batch) override;
  Result<std::vector<QueueStatus>> batches() override;
  Result<std::vector<QueuedGoal>> goals(const std::string& batch, bool finished_only) override;
  Result<bool> has_work() override;
  Result<std::vector<WorkerStatus>> workers() override;

private:
  std::mutex m_mutex;
  std::unique_ptr<pg::Connection> m_db;
};

Result<EnqueueOutcome> PgGoalQueue::enqueue(const std::string& batch,
                                            const std::string& settings_json,
                                            const std::vector<GoalSpec>& goals) {
  nlohmann::json lines = nlohmann::json::array();
  for (const GoalSpec& goal : goals) {
    lines.push_back({goal.id, goal.spec_json});
  }
  const std::string array = lines.dump();
  std::lock_guard lock(m_mutex);
  // Run again after a fault in COMMIT, the goals the first run added read as already there.
  return m_db->transaction("enqueue goals", [&](Connection& c) -> Result<EnqueueOutcome> {
    TRY(c.query("INSERT INTO queue_batches (name, settings_json) VALUES ($1, $2) "
                "ON CONFLICT (name) DO NOTHING",
                Params().add(batch).add(settings_json), "enqueue goals"));
    // One statement for the whole file; WITH ORDINALITY keeps the file's order in `seq`.
    TRY_ASSIGN(const Rows added,
               c.query("INSERT INTO queue_goals (batch, id, spec_json) "
                       "SELECT $1, line->>0, line->>1 "
                       "FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(line, n) "
                       "ORDER BY n ON CONFLICT (batch, id) DO NOTHING RETURNING id",
                       Params().add(batch).add(array), "enqueue goals"));
    c.notify("batch:" + batch);
    std::set<std::string> new_ids;
    for (int row = 0; row < added.size(); ++row) {
      new_ids.insert(added.text(row, 0));
    }
    TRY_ASSIGN(const Rows existing,
               c.query("SELECT g.id, g.spec_json FROM queue_goals g "
                       "JOIN jsonb_array_elements($2::jsonb) AS t(line) ON g.id = line->>0 "
                       "WHERE g.batch = $1",
                       Params().add(batch).add(array), "enqueue goals"));
    std::map<std::string, std::string> specs;
    for (int row = 0; row < existing.size(); ++row) {
      specs.emplace(existing.text(row, 0), existing.text(row, 1));
    }
    EnqueueOutcome outcome;
    for (const GoalSpec& goal : goals) {
      if (new_ids.count(goal.id) != 0) {
        outcome.added.push_back(goal.id);
      } else if (specs[goal.id] == goal.spec_json) {
        outcome.already.push_back(goal.id);
      } else {
        outcome.conflicts.push_back(goal.id);
      }
    }
    return outcome;
  });
}

Result<std::vector<QueuedGoal>> PgGoalQueue::claim(const std::string& worker, int max,
                                                   std::chrono::milliseconds lease) {
  const std::string sql = fmt::format(
      "WITH picked AS ("
      " SELECT batch, id FROM queue_goals"
      " WHERE state = 'queued' OR (state = 'running' AND lease_until < now())"
      " ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED) "
      "UPDATE queue_goals g SET state = 'running', worker = $1, tries = g.tries + 1,"
      " lease_until = now() + $3 * interval '1 millisecond', renewed_at = now() "
      "FROM picked WHERE g.batch = picked.batch AND g.id = picked.id "
      "RETURNING {}, (SELECT settings_json FROM queue_batches b WHERE b.name = g.batch),"
      " g.checkpoint",
      k_columns);
  std::lock_guard lock(m_mutex);
  // A claim whose COMMIT was cut off may have been made: run again, it claims others, and the
  // first ones come back to the queue when their lease runs out.
  return m_db->transaction("claim goals", [&](Connection& c) -> Result<std::vector<QueuedGoal>> {
    TRY_ASSIGN(const Rows rows,
               c.query(sql,
                       Params().add(worker).add(max).add(static_cast<std::int64_t>(lease.count())),
                       "claim goals"));
    std::vector<QueuedGoal> goals;
    for (int row = 0; row < rows.size(); ++row) {
      goals.push_back(read_goal(rows, row));
      goals.back().settings_json = rows.text(row, k_column_count);
      goals.back().checkpoint = rows.text(row, k_column_count + 1);
      c.notify("batch:" + goals.back().batch);
    }
    if (!goals.empty()) {
      c.notify("workers");
    }
    std::sort(goals.begin(), goals.end(),
              [](const QueuedGoal& a, const QueuedGoal& b) { return a.seq < b.seq; });
    return goals;
  });
}

Result<std::vector<GoalClaim>> PgGoalQueue::renew(const std::string& worker,
                                                  const std::vector<GoalClaim>& claims,
                                                  std::chrono::milliseconds lease) {
  if (claims.empty()) {
    return std::vector<GoalClaim>{};
  }
  const std::string array = claims_json(claims);
  std::lock_guard lock(m_mutex);
  return m_db->transaction("renew leases", [&](Connection& c) -> Result<std::vector<GoalClaim>> {
    TRY_ASSIGN(
        const Rows held,
        c.query("UPDATE queue_goals g SET lease_until = now() + $3 * interval '1 "
                "millisecond', renewed_at = now() FROM jsonb_array_elements($2::jsonb) AS t(k) "
                "WHERE g.batch = k->>0 AND g.id = k->>1 AND g.tries = (k->>2)::int "
                "AND g.worker = $1 AND g.state = 'running' RETURNING g.batch, g.id",
                Params().add(worker).add(array).add(static_cast<std::int64_t>(lease.count())),
                "renew leases"));
    if (!held.empty()) {
      c.notify("workers"); // a heartbeat
    }
    std::set<std::pair<std::string, std::string>> kept;
    for (int row = 0; row < held.size(); ++row) {
      kept.emplace(held.text(row, 0), held.text(row, 1));
    }
    std::vector<GoalClaim> lost;
    for (const GoalClaim& claim : claims) {
      if (kept.count({claim.batch, claim.id}) == 0) {
        lost.push_back(claim);
      }
    }
    return lost;
  });
}

Result<bool> PgGoalQueue::finish(const std::string& worker, const GoalClaim& claim,
                                 const GoalOutcome& outcome) {
  std::lock_guard lock(m_mutex);
  return m_db->transaction("finish a goal", [&](Connection& c) -> Result<bool> {
    TRY_ASSIGN(
        const Rows updated,
        c.query("UPDATE queue_goals SET state = $5, status = $6, session_id = $7, "
                "result_json = $8, verified = $9, tokens = $10, cost_usd = $11, cost_known = $12, "
                "lease_until = NULL, finished_at = now() "
                "WHERE batch = $1 AND id = $2 AND tries = $3 AND worker = $4 "
                "AND state = 'running'",
                held_by(claim, worker)
                    .add(outcome.completed ? "done" : "failed")
                    .add(outcome.status)
                    .add(outcome.session_id)
                    .add(outcome.result_json)
                    .add(outcome.verified)
                    .add(outcome.spent.tokens)
                    .add(outcome.spent.cost_usd)
                    .add(outcome.spent.cost_known),
                "finish a goal"));
    if (updated.affected() == 1) {
      c.notify("batch:" + claim.batch);
      c.notify("workers");
      return true;
    }
    // Run again after a fault in COMMIT: finished by this very claim is finished.
    TRY_ASSIGN(const Rows row,
               c.query("SELECT 1 FROM queue_goals WHERE batch = $1 AND id = $2 "
                       "AND tries = $3 AND worker = $4 "
                       "AND state IN ('done', 'failed') AND result_json = $5",
                       held_by(claim, worker).add(outcome.result_json), "finish a goal"));
    return !row.empty();
  });
}

Result<bool> PgGoalQueue::release(const std::string& worker, const GoalClaim& claim,
                                  const GoalSpent& spent) {
  std::lock_guard lock(m_mutex);
  return m_db->transaction("release a goal", [&](Connection& c) -> Result<bool> {
    TRY_ASSIGN(
        const Rows updated,
        c.query("UPDATE queue_goals SET state = 'queued', lease_until = NULL, "
                "tokens = $5, cost_usd = $6, cost_known = $7 "
                "WHERE batch = $1 AND id = $2 AND tries = $3 AND worker = $4 "
                "AND state = 'running'",
                held_by(claim, worker).add(spent.tokens).add(spent.cost_usd).add(spent.cost_known),
                "release a goal"));
    if (updated.affected() == 1) {
      c.notify("batch:" + claim.batch);
      c.notify("workers");
    }
    return updated.affected() == 1;
  });
}

Result<bool> PgGoalQueue::set_session(const std::string& worker, const GoalClaim& claim,
                                      const std::string& session_id) {
  std::lock_guard lock(m_mutex);
  return m_db->transaction("note a goal's session", [&](Connection& c) -> Result<bool> {
    TRY_ASSIGN(const Rows updated,
               c.query("UPDATE queue_goals SET session_id = $5 "
                       "WHERE batch = $1 AND id = $2 AND tries = $3 AND worker = $4 "
                       "AND state = 'running'",
                       held_by(claim, worker).add(session_id), "note a goal's session"));
    if (updated.affected() == 1) {
      c.notify("batch:" + claim.batch);
    }
    return updated.affected() == 1;
  });
}

Result<bool> PgGoalQueue::save_checkpoint(const std::string& worker, const GoalClaim& claim,
                                          const std::string& patch) {
  std::lock_guard lock(m_mutex);
  return m_db->transaction("save a goal's checkpoint", [&](Connection& c) -> Result<bool> {
    TRY_ASSIGN(const Rows updated,
               c.query("UPDATE queue_goals SET checkpoint = $5 "
                       "WHERE batch = $1 AND id = $2 AND tries = $3 AND worker = $4 "
                       "AND state = 'running'",
                       held_by(claim, worker).add(patch), "save a goal's checkpoint"));
    return updated.affected() == 1;
  });
}

Result<std::vector<QueueStatus>> PgGoalQueue::batches() {
  std::lock_guard lock(m_mutex);
  return m_db->transaction("count goals", [&](Connection& c) -> Result<std::vector<QueueStatus>> {
    TRY_ASSIGN(const Rows rows,
               c.query("SELECT b.name, to_char(b.created_at AT TIME ZONE 'UTC', "
                       "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), g.state, g.worker, g.status, "
                       "count(g.id), coalesce(sum(g.verified::int), 0), "
                       "coalesce(sum(g.tokens), 0), coalesce(sum(g.cost_usd), 0), "
                       "count(g.id) FILTER (WHERE g.lease_until < now()), "
                       "coalesce(bool_and(g.cost_known), true) "
                       "FROM queue_batches b LEFT JOIN queue_goals g ON g.batch = b.name "
                       "GROUP BY b.name, b.created_at, g.state, g.worker, g.status "
                       "ORDER BY b.created_at, b.name",
                       "count goals"));
    std::vector<QueueStatus> out;
    for (int row = 0; row < rows.size(); ++row) {
      if (out.empty() || out.back().batch != rows.text(row, 0)) {
        out.push_back(QueueStatus{.batch = rows.text(row, 0), .created_at = rows.text(row, 1)});
      }
      QueueStatus& status = out.back();
      if (rows.is_null(row, 2)) {
        continue; // a batch without goals
      }
      const int count = static_cast<int>(rows.integer(row, 5));
      switch (state_of(rows.text(row, 2))) {
      case GoalState::queued:
        status.queued += count;
        break;
      case GoalState::running:
        status.running += count;
        status.running_by_worker[rows.text(row, 3)] += count;
        status.stale += static_cast<int>(rows.integer(row, 9));
        break;
      case GoalState::done:
      case GoalState::failed:
        (state_of(rows.text(row, 2)) == GoalState::done ? status.done : status.failed) += count;
        status.statuses[rows.text(row, 4)] += count;
        break;
      }
      status.verified += static_cast<int>(rows.integer(row, 6));
      status.tokens += rows.integer(row, 7);
      status.cost_usd += rows.real(row, 8);
      status.cost_known = status.cost_known && rows.boolean(row, 10);
    }
    return out;
  });
}

Result<std::optional<QueueStatus>> PgGoalQueue::status(const std::string& batch) {
  // Every batch is counted: a queue holds few batches, and one query serves both commands.
  TRY_ASSIGN(const auto all, batches());
  for (const QueueStatus& status : all) {
    if (status.batch == batch) {
      return status;
    }
  }
  return std::nullopt;
}

Result<std::vector<QueuedGoal>> PgGoalQueue::goals(const std::string& batch, bool finished_only) {
  const std::string sql =
      fmt::format("SELECT {} FROM queue_goals g WHERE g.batch = $1 {} ORDER BY g.seq", k_columns,
                  finished_only ? "AND g.state IN ('done', 'failed')" : "");
  std::lock_guard lock(m_mutex);
  return m_db->transaction("read goals", [&](Connection& c) -> Result<std::vector<QueuedGoal>> {
    TRY_ASSIGN(const Rows rows, c.query(sql, Params().add(batch), "read goals"));
    std::vector<QueuedGoal> goals;
    goals.reserve(static_cast<std::size_t>(rows.size()));
    for (int row = 0; row < rows.size(); ++row) {
      goals.push_back(read_goal(rows, row));
    }
    return goals;
  });
}

Result<bool> PgGoalQueue::has_work() {
  std::lock_guard lock(m_mutex);
  return m_db->transaction("look for goals", [&](Connection& c) -> Result<bool> {
    TRY_ASSIGN(const Rows rows, c.query("SELECT EXISTS (SELECT 1 FROM queue_goals "
                                        "WHERE state IN ('queued', 'running'))",
                                        "look for goals"));
    return rows.boolean(0, 0);
  });
}

Result<std::vector<WorkerStatus>> PgGoalQueue::workers() {
  std::lock_guard lock(m_mutex);
  return m_db->transaction("read workers", [&](Connection& c) -> Result<std::vector<WorkerStatus>> {
    TRY_ASSIGN(
        const Rows rows,
        c.query("SELECT worker, batch, id, coalesce(to_char(lease_until AT TIME ZONE 'UTC', "
                "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), ''), coalesce(lease_until < now(), false), "
                "(extract(epoch FROM now() - renewed_at) * 1000)::bigint "
                "FROM queue_goals WHERE state = 'running' ORDER BY worker, seq",
                "read workers"));
    std::vector<WorkerStatus> out;
    for (int row = 0; row < rows.size(); ++row) {
      if (out.empty() || out.back().name != rows.text(row, 0)) {
        out.push_back(WorkerStatus{.name = rows.text(row, 0), .goals = {}, .heartbeat_age_ms = {}});
      }
      WorkerStatus& worker = out.back();
      worker.goals.push_back(HeldGoal{.batch = rows.text(row, 1),
                                      .id = rows.text(row, 2),
                                      .lease_until = rows.text(row, 3),
                                      .stale = rows.boolean(row, 4)});
      if (!rows.is_null(row, 5)) {
        // The latest of its goals' renewals: a renewal covers all it still holds.
        const std::int64_t age = rows.integer(row, 5);
        worker.heartbeat_age_ms = std::min(worker.heartbeat_age_ms.value_or(age), age);
      }
    }
    return out;
  });
}

} // namespace

Result<std::unique_ptr<GoalQueue>> GoalQueue::open(const std::string& url,
                                                   std::chrono::milliseconds retry_for) {
  pg::RetryPolicy retry;
  retry.give_up_after = retry_for;
  TRY_ASSIGN(auto db, Connection::open(url, retry));
  TRY(pg::migrate(*db, "queue", pg::queue_schema()));
  return std::unique_ptr<GoalQueue>(std::make_unique<PgGoalQueue>(std::move(db)));
}

} // namespace ralph::store
