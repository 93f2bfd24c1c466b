#include "ralph/engine/job_thread.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace ralph::engine {
namespace {

TEST(JobThread, RunsJobsOneAtATimeInTheOrderPostedOffThePostersThread) {
  std::mutex mutex;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  std::promise<void> last;
  JobThread jobs;
  for (int i = 0; i < 100; ++i) {
    jobs.post([&, i] {
      std::lock_guard lock(mutex);
      order.push_back(i);
      threads.push_back(std::this_thread::get_id());
    });
  }
  jobs.post([&] { last.set_value(); });
  last.get_future().wait();
  std::lock_guard lock(mutex);
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
    EXPECT_EQ(threads[static_cast<std::size_t>(i)], threads[0]);
  }
  EXPECT_NE(threads[0], std::this_thread::get_id());
}

} // namespace
} // namespace ralph::engine
