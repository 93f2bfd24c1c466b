#include "store/pg_db.h"
#include "store/pg_schema.h"
#include "support/fake_clock.h"
#include "support/fake_goal_queue.h"
#include "support/pg_cluster.h"

#include "ralph/store/goal_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace ralph::store {
namespace {

using testing::PgCluster;
using namespace std::chrono_literals;

std::vector<GoalSpec> specs(int count, const std::string& prefix = "g") {
  std::vector<GoalSpec> out;
  for (int i = 0; i < count; ++i) {
    const std::string id = prefix + std::to_string(i);
    out.push_back({.id = id, .spec_json = R"({"goal":"do )" + id + R"(","id":")" + id + "\"}"});
  }
  return out;
}

GoalOutcome completed(const std::string& session) {
  return GoalOutcome{.completed = true,
                     .status = "completed",
                     .session_id = session,
                     .result_json = R"({"status":"completed"})",
                     .verified = true,
                     .spent = {.tokens = 10, .cost_usd = 0.5}};
}

// The contract of GoalQueue, one suite run against each implementation: a fresh database on the
// PostgreSQL server the tests share (leases on the server's clock), and the in-memory queue the
// worker's tests use (leases on a FakeClock).
class GoalQueueContract : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    if (GetParam() == "postgresql") {
      PgCluster& cluster = PgCluster::shared();
      RALPH_REQUIRE_PG(cluster);
      m_url = cluster.fresh_database();
    }
    m_first = &another();
  }

  // The queue the test works on.
  GoalQueue& queue() { return *m_first; }
  // Another client of the same queue: a connection of its own, or the one in-memory queue.
  GoalQueue& another() {
    if (m_url.empty()) {
      if (!m_fake) {
        m_fake = std::make_unique<ralph::testing::FakeGoalQueue>(m_clock);
      }
      return *m_fake;
    }
    auto queue = GoalQueue::open(m_url, 10s);
    if (!queue) {
      ADD_FAILURE() << queue.error().message;
      std::abort();
    }
    return *m_opened.emplace_back(std::move(*queue));
  }
  // Time passes, as it does on its own on the server between two statements.
  void pass_time() { m_clock.advance(1ms); }

private:
  std::string m_url;
  ralph::testing::FakeClock m_clock;
  std::unique_ptr<ralph::testing::FakeGoalQueue> m_fake;
  std::vector<std::unique_ptr<GoalQueue>> m_opened;
  GoalQueue* m_first = nullptr;
};

INSTANTIATE_TEST_SUITE_P(Queues, GoalQueueContract, ::testing::Values("postgresql", "memory"),
                         [](const auto& queue) { return queue.param; });

TEST_P(GoalQueueContract, EnqueueIsIdempotentByGoalIdAndReportsAChangedGoal) {
  GoalQueue* queue = &this->queue();
  auto first = queue->enqueue("b", R"({"model":"m"})", specs(3));
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->added, (std::vector<std::string>{"g0", "g1", "g2"}));
  EXPECT_TRUE(first->already.empty());

  std::vector<GoalSpec> again = specs(4);
  again[1].spec_json = R"({"goal":"something else","id":"g1"})";
  auto second = queue->enqueue("b", R"({"model":"other"})", again);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->added, (std::vector<std::string>{"g3"}));
  EXPECT_EQ(second->already, (std::vector<std::string>{"g0", "g2"}));
  EXPECT_EQ(second->conflicts, (std::vector<std::string>{"g1"}));

  auto goals = queue->goals("b");
  ASSERT_TRUE(goals) << goals.error().message;
  ASSERT_EQ(goals->size(), 4u);
  EXPECT_EQ((*goals)[1].spec_json, specs(2)[1].spec_json); // not overwritten
  // The file's order is the claim order; the batch keeps its first settings.
  auto claimed = queue->claim("w", 10, 60s);
  ASSERT_TRUE(claimed) << claimed.error().message;
  ASSERT_EQ(claimed->size(), 4u);
  EXPECT_EQ((*claimed)[0].id, "g0");
  EXPECT_EQ((*claimed)[3].id, "g3");
  EXPECT_EQ((*claimed)[0].settings_json, R"({"model":"m"})");
  // A goal of another batch with the same id is its own goal.
  auto other = queue->enqueue("c", "{}", specs(1));
  ASSERT_TRUE(other);
  EXPECT_EQ(other->added.size(), 1u);
}

TEST_P(GoalQueueContract, ConcurrentWorkersClaimEveryGoalExactlyOnce) {
  GoalQueue* setup = &queue();
  ASSERT_TRUE(setup->enqueue("big", "{}", specs(1000)));

  constexpr int k_workers = 8;
  std::vector<GoalQueue*> queues;
  for (int w = 0; w < k_workers; ++w) {
    queues.push_back(&another());
  }
  std::mutex mutex;
  std::map<std::string, int> claimed;
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < k_workers; ++w) {
    threads.emplace_back([&, w] {
      GoalQueue* queue = queues[static_cast<std::size_t>(w)];
      const std::string name = "w" + std::to_string(w);
      for (;;) {
        auto got = queue->claim(name, 7, 60s);
        if (!got) {
          ++errors;
          return;
        }
        if (got->empty()) {
          return;
        }
        for (const QueuedGoal& goal : *got) {
          {
            std::lock_guard lock(mutex);
            ++claimed[goal.id];
          }
          auto done = queue->finish(name, claim_of(goal), completed("s-" + goal.id));
          if (!done || !*done) {
            ++errors;
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(errors.load(), 0);
  ASSERT_EQ(claimed.size(), 1000u);
  for (const auto& [id, times] : claimed) {
    EXPECT_EQ(times, 1) << id;
  }
  auto status = setup->status("big");
  ASSERT_TRUE(status && *status);
  EXPECT_EQ((*status)->done, 1000);
  EXPECT_EQ((*status)->queued + (*status)->running, 0);
  EXPECT_EQ((*status)->tokens, 10000);
}

TEST_P(GoalQueueContract, AnExpiredLeaseIsTakenOverAndTheOldWorkersFinishIsRefused) {
  GoalQueue* queue = &this->queue();
  ASSERT_TRUE(queue->enqueue("b", "{}", specs(1)));
  auto first = queue->claim("old", 1, 0ms);
  ASSERT_TRUE(first && first->size() == 1u);
  ASSERT_TRUE(*queue->set_session("old", claim_of((*first)[0]), "session-1"));
  ASSERT_TRUE(*queue->save_checkpoint("old", claim_of((*first)[0]), "patch-1"));
  // A lease of 0 ms has run out once the server's clock moved on.
  std::vector<QueuedGoal> second;
  for (int tries = 0; second.empty() && tries < 10000; ++tries) {
    pass_time();
    auto got = queue->claim("new", 1, 60s);
    ASSERT_TRUE(got) << got.error().message;
    second = *got;
  }
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].worker, "new");
  EXPECT_EQ(second[0].tries, 2);
  EXPECT_EQ(second[0].session_id, "session-1"); // to resume
  EXPECT_EQ(second[0].checkpoint, "patch-1");   // in the workspace the old worker left
  EXPECT_EQ(second[0].state, GoalState::running);

  // The old worker lost it: renew says so, and its finish, release and session are refused.
  auto lost = queue->renew("old", {claim_of((*first)[0])}, 60s);
  ASSERT_TRUE(lost);
  EXPECT_EQ(*lost, std::vector<GoalClaim>{claim_of((*first)[0])});
  EXPECT_FALSE(*queue->finish("old", claim_of((*first)[0]), completed("session-1")));
  EXPECT_FALSE(*queue->release("old", claim_of((*first)[0]), {}));
  EXPECT_FALSE(*queue->set_session("old", claim_of((*first)[0]), "other"));
  EXPECT_FALSE(*queue->save_checkpoint("old", claim_of((*first)[0]), "patch-old"));
  // The new holder renews and finishes; a finished goal is never claimed again, and finishing
  // the same claim twice (a retried COMMIT) is still one result.
  auto kept = queue->renew("new", {claim_of(second[0])}, 60s);
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->empty());
  EXPECT_TRUE(*queue->finish("new", claim_of(second[0]), completed("session-1")));
  EXPECT_TRUE(*queue->finish("new", claim_of(second[0]), completed("session-1")));
  auto none = queue->claim("late", 5, 1ms);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  auto results = queue->goals("b", true);
  ASSERT_TRUE(results);
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].worker, "new");
  EXPECT_EQ((*results)[0].state, GoalState::done);
  EXPECT_FALSE(*queue->has_work());
}

TEST_P(GoalQueueContract, AReleasedGoalIsClaimedAgainWithItsSession) {
  GoalQueue* queue = &this->queue();
  ASSERT_TRUE(queue->enqueue("b", "{}", specs(1)));
  auto first = queue->claim("a", 1, 60s);
  ASSERT_TRUE(first && first->size() == 1u);
  ASSERT_TRUE(*queue->set_session("a", claim_of((*first)[0]), "s1"));
  EXPECT_TRUE(*queue->has_work());
  ASSERT_TRUE(*queue->release("a", claim_of((*first)[0]), {.tokens = 1200, .cost_usd = 0.25}));
  const auto status = queue->status("b");
  ASSERT_TRUE(status && *status);
  EXPECT_EQ((*status)->tokens, 1200) << "what its session spent before it was given back";
  EXPECT_DOUBLE_EQ((*status)->cost_usd, 0.25);
  auto again = queue->claim("b", 1, 60s);
  ASSERT_TRUE(again && again->size() == 1u);
  EXPECT_EQ((*again)[0].session_id, "s1");
  EXPECT_EQ((*again)[0].worker, "b");
}

TEST_P(GoalQueueContract, StatusCountsGoalsByStateWorkerAndOutcome) {
  GoalQueue* queue = &this->queue();
  ASSERT_TRUE(queue->enqueue("b", "{}", specs(6)));
  ASSERT_TRUE(queue->enqueue("empty", "{}", {}));
  auto a = queue->claim("a", 3, 60s);
  auto b = queue->claim("b", 1, 60s);
  ASSERT_TRUE(a && b && a->size() == 3u && b->size() == 1u);
  ASSERT_TRUE(*queue->finish("a", claim_of((*a)[0]), completed("s0")));
  ASSERT_TRUE(*queue->finish("a", claim_of((*a)[1]),
                             GoalOutcome{.completed = false,
                                         .status = "budget_exhausted",
                                         .result_json = "{}",
                                         .spent = {.tokens = 5}}));
  auto status = queue->status("b");
  ASSERT_TRUE(status && *status) << (status ? "" : status.error().message);
  EXPECT_EQ((*status)->goals(), 6);
  EXPECT_EQ((*status)->queued, 2);
  EXPECT_EQ((*status)->running, 2);
  EXPECT_EQ((*status)->done, 1);
  EXPECT_EQ((*status)->failed, 1);
  EXPECT_EQ((*status)->verified, 1);
  EXPECT_EQ((*status)->tokens, 15);
  EXPECT_DOUBLE_EQ((*status)->cost_usd, 0.5);
  EXPECT_EQ((*status)->running_by_worker, (std::map<std::string, int>{{"a", 1}, {"b", 1}}));
  EXPECT_EQ((*status)->statuses,
            (std::map<std::string, int>{{"budget_exhausted", 1}, {"completed", 1}}));
  auto all = queue->batches();
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].batch, "empty");
  EXPECT_EQ((*all)[1].goals(), 0);
  auto missing = queue->status("nope");
  ASSERT_TRUE(missing);
  EXPECT_FALSE(*missing);
}

// One worker's row of workers(); fails the test when it is not there.
WorkerStatus worker_of(GoalQueue& queue, const std::string& name) {
  auto all = queue.workers();
  EXPECT_TRUE(all) << all.error().message;
  for (const WorkerStatus& worker : all.value_or(std::vector<WorkerStatus>{})) {
    if (worker.name == name) {
      return worker;
    }
  }
  ADD_FAILURE() << "no worker " << name;
  return {};
}

TEST_P(GoalQueueContract, WorkersShowTheirGoalsAndAHeartbeatThatAgesAndResetsOnRenew) {
  GoalQueue* queue = &this->queue();
  ASSERT_TRUE(queue->enqueue("b", "{}", specs(3)));
  auto one = queue->claim("w1", 2, 60s);
  auto two = queue->claim("w2", 1, 60s);
  ASSERT_TRUE(one && two && one->size() == 2u && two->size() == 1u);

  auto all = queue->workers();
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].name, "w1");
  ASSERT_EQ((*all)[0].goals.size(), 2u);
  EXPECT_EQ((*all)[0].goals[0].batch, "b");
  EXPECT_EQ((*all)[0].goals[0].id, "g0");
  EXPECT_EQ((*all)[0].goals[1].id, "g1");
  EXPECT_EQ((*all)[0].goals[0].lease_until, (*one)[0].lease_until);
  EXPECT_FALSE((*all)[0].goals[0].stale);
  EXPECT_EQ((*all)[1].name, "w2");
  ASSERT_EQ((*all)[1].goals.size(), 1u);
  EXPECT_EQ((*all)[1].goals[0].id, "g2");
  ASSERT_TRUE((*all)[0].heartbeat_age_ms && (*all)[1].heartbeat_age_ms);
  const std::int64_t first = *(*all)[0].heartbeat_age_ms;
  EXPECT_GE(first, 0);

  // The heartbeat ages as the queue's clock moves on (the server's: read until it has).
  std::int64_t aged = first;
  for (int look = 0; look < 100000 && aged < first + 5; ++look) {
    pass_time();
    aged = worker_of(*queue, "w1").heartbeat_age_ms.value_or(-1);
  }
  ASSERT_GE(aged, first + 5);
  auto lost = queue->renew("w1", {claim_of((*one)[0]), claim_of((*one)[1])}, 60s);
  ASSERT_TRUE(lost && lost->empty());
  const auto renewed = worker_of(*queue, "w1").heartbeat_age_ms;
  const auto other = worker_of(*queue, "w2").heartbeat_age_ms;
  ASSERT_TRUE(renewed && other);
  EXPECT_LT(*renewed, aged) << "a renewal is a heartbeat";
  EXPECT_GT(*other, *renewed) << "w2 did not renew";

  // A lease that runs out shows as stale, still under the worker that held it.
  ASSERT_TRUE(queue->enqueue("b", "{}", specs(4)));
  auto short_lease = queue->claim("w3", 1, 1ms);
  ASSERT_TRUE(short_lease && short_lease->size() == 1u);
  bool stale = false;
  for (int look = 0; look < 100000 && !stale; ++look) {
    pass_time();
    const WorkerStatus w3 = worker_of(*queue, "w3");
    stale = w3.stale() == 1;
  }
  EXPECT_TRUE(stale);
  EXPECT_EQ(worker_of(*queue, "w1").stale(), 0);

  // A finished goal is no longer held; a worker holding none is not shown.
  ASSERT_TRUE(*queue->finish("w2", claim_of((*two)[0]), completed("s2")));
  auto left = queue->workers();
  ASSERT_TRUE(left);
  ASSERT_EQ(left->size(), 2u);
  EXPECT_EQ((*left)[0].name, "w1");
  EXPECT_EQ((*left)[1].name, "w3");
}

TEST(PgGoalQueue, AQueueFromBeforeHeartbeatsIsMigratedAndItsGoalsHeartbeatIsUnknownUntilRenewed) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  {
    // The queue as the release before heartbeats left it: version 2, a goal running.
    auto db = pg::Connection::open(url);
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE(pg::migrate(**db, "queue", pg::queue_schema().first(2)));
    ASSERT_TRUE((*db)->exec("INSERT INTO queue_batches (name, settings_json) VALUES ('b', '{}');"
                            "INSERT INTO queue_goals (batch, id, spec_json, state, worker, "
                            "lease_until, tries) VALUES ('b', 'g0', '{}', 'running', 'old', "
                            "now() + interval '1 hour', 1)",
                            "make an old queue"));
  }
  auto queue = GoalQueue::open(url, 10s);
  ASSERT_TRUE(queue) << queue.error().message;
  auto before = (*queue)->workers();
  ASSERT_TRUE(before) << before.error().message;
  ASSERT_EQ(before->size(), 1u);
  EXPECT_EQ((*before)[0].name, "old");
  EXPECT_FALSE((*before)[0].heartbeat_age_ms) << "unknown, not 0";
  auto lost = (*queue)->renew("old", {GoalClaim{.batch = "b", .id = "g0", .tries = 1}}, 60s);
  ASSERT_TRUE(lost && lost->empty());
  auto after = (*queue)->workers();
  ASSERT_TRUE(after && after->size() == 1u);
  ASSERT_TRUE((*after)[0].heartbeat_age_ms);
  EXPECT_GE(*(*after)[0].heartbeat_age_ms, 0);
}

} // namespace
} // namespace ralph::store
