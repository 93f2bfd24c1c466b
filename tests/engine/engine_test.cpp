#include "http/loopback_server.h"
#include "support/temp_dir.h"

#include "ralph/engine/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace ralph::engine {
namespace {

using namespace std::chrono_literals;
using ralph::testing::LoopbackServer;
using ralph::testing::TempDir;

// A server whose answers wait until `expected` requests are in flight at once (or 30 s pass):
// clients that cannot hold that many requests open together get 504s, not 200s.
class MeetingServer {
public:
  explicit MeetingServer(int expected) : m_expected(expected) {
    auto& server = m_loopback.server();
    const auto threads = static_cast<std::size_t>(expected) + 4;
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server.Post("/meet", [this](const httplib::Request&, httplib::Response& res) {
      std::unique_lock lock(m_mutex);
      ++m_arrived;
      m_changed.notify_all();
      const bool met = m_changed.wait_for(lock, 30s, [this] { return m_arrived >= m_expected; });
      res.status = met ? 200 : 504;
      res.set_content(met ? "met" : "alone", "text/plain");
    });
    m_loopback.start();
  }
  std::string url() const { return m_loopback.url("/meet"); }

private:
  std::mutex m_mutex;
  std::condition_variable m_changed;
  int m_arrived = 0;
  const int m_expected;
  LoopbackServer m_loopback; // last: stops before the state its handler uses goes
};

TEST(Engine, OneThreadHoldsManyRequestsInFlightAtOnce) {
  constexpr int k_sessions = 200;
  MeetingServer server(k_sessions);
  Engine engine({.threads = 1});
  std::atomic<int> met{0};
  std::atomic<int> failed{0};
  std::mutex mutex;
  std::string first_failure;
  std::set<std::thread::id> threads;
  for (int i = 0; i < k_sessions; ++i) {
    engine.spawn([&](Io& io) {
      {
        std::lock_guard lock(mutex);
        threads.insert(std::this_thread::get_id());
      }
      auto transport = io.make_transport();
      http::Request request{.url = server.url(), .body = "hello"};
      const auto response = transport->send(request, {}, {});
      if (response && response->status == 200 && response->body == "met") {
        ++met;
      } else {
        ++failed;
        std::lock_guard lock(mutex);
        if (first_failure.empty()) {
          first_failure = response ? std::to_string(response->status) + " " + response->body
                                   : response.error().message;
        }
      }
    });
  }
  engine.wait();
  EXPECT_EQ(met.load(), k_sessions);
  EXPECT_EQ(failed.load(), 0) << first_failure;
  EXPECT_EQ(threads.size(), 1U);
}

TEST(Engine, AChildProcessWaitingForAnotherTasksChildDoesNotHoldTheThread) {
  // Task A's child reads a FIFO that only task B's child writes. On one thread that blocks while
  // a child runs, A would hold it and B never start: A's child times out after 20 s.
  TempDir dir;
  const auto fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Engine engine({.threads = 1});
  std::string read_back;
  std::optional<int> writer_exit;
  engine.spawn([&](Io& io) {
    tools::ProcessSpec spec{.argv = {"cat", fifo.string()}, .timeout = 20s};
    const auto result = io.runner().run(spec, {});
    read_back = result ? result->output : result.error().message;
  });
  engine.spawn([&](Io& io) {
    tools::ProcessSpec spec{.argv = {"/bin/sh", "-c", "echo through > \"$0\"", fifo.string()},
                            .timeout = 20s};
    const auto result = io.runner().run(spec, {});
    writer_exit = result ? result->exit_code : std::nullopt;
  });
  engine.wait();
  EXPECT_EQ(read_back, "through\n");
  EXPECT_EQ(writer_exit, 0);
}

TEST(Engine, ASleepingTaskLeavesTheThreadToOthersAndWakesOnCancel) {
  Engine engine({.threads = 1});
  CancelToken cancel;
  std::optional<bool> slept_through;
  bool other_ran_first = false;
  engine.spawn([&](Io& io) { slept_through = io.clock().sleep_for(60s, cancel); });
  engine.spawn([&](Io&) {
    other_ran_first = !slept_through.has_value();
    cancel.cancel();
  });
  engine.wait();
  EXPECT_TRUE(other_ran_first);
  EXPECT_EQ(slept_through, false);
}

TEST(Engine, ACancelledRequestEndsWhileItsServerStillHoldsIt) {
  LoopbackServer server;
  std::atomic<bool> arrived{false};
  server.server().Post("/hold", [&](const httplib::Request&, httplib::Response& res) {
    arrived = true;
    server.gate().wait();
    res.set_content("late", "text/plain");
  });
  server.start();
  Engine engine({.threads = 1});
  CancelToken cancel;
  std::optional<ErrorKind> kind;
  engine.spawn([&](Io& io) {
    auto transport = io.make_transport();
    const auto response = transport->send({.url = server.url("/hold")}, {}, cancel);
    kind = response ? std::nullopt : std::optional(response.error().kind);
  });
  engine.spawn([&](Io& io) {
    // The request is in the server's hands once its handler runs; meanwhile this fiber naps,
    // which leaves the thread to the transfer.
    while (!arrived) {
      io.clock().sleep_for(5ms, {});
    }
    cancel.cancel();
  });
  engine.wait();
  EXPECT_EQ(kind, ErrorKind::cancelled);
}

TEST(Engine, IoUsedFromAThreadATaskStartedItselfWorks) {
  Engine engine({.threads = 1});
  std::optional<int> exit_code;
  engine.spawn([&](Io& io) {
    std::thread helper([&] {
      const auto result = io.runner().run({.argv = {"/bin/sh", "-c", "exit 7"}}, {});
      exit_code = result ? result->exit_code : std::nullopt;
    });
    helper.join(); // blocks this engine thread: fine for a test, which has nothing else to run
  });
  engine.wait();
  EXPECT_EQ(exit_code, 7);
}

TEST(Engine, TasksSpreadOverItsThreadsAndMaySpawnMore) {
  Engine engine({.threads = 2});
  EXPECT_EQ(engine.threads(), 2U);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  std::atomic<int> children{0};
  const auto note_thread = [&] {
    std::lock_guard lock(mutex);
    seen.insert(std::this_thread::get_id());
  };
  // Spawns take turns over the threads, the children's with the parents': how the 16 interleave
  // decides which thread runs which, not that both run some (the 8 parents alone may share one).
  for (int i = 0; i < 8; ++i) {
    engine.spawn([&](Io&) {
      note_thread();
      engine.spawn([&](Io&) {
        note_thread();
        ++children;
      });
    });
  }
  engine.wait();
  EXPECT_EQ(seen.size(), 2U);
  EXPECT_EQ(children.load(), 8);
}

} // namespace
} // namespace ralph::engine
