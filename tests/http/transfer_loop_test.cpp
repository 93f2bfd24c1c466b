#include "loopback_server.h"

#include "ralph/http/transfer_loop.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>

namespace ralph::http {
namespace {

using namespace std::chrono_literals;

// Runs the loop until `done` holds (or 20 s pass, which fails the test).
template <typename Done> bool run_until(TransferLoop& loop, Done done) {
  const auto give_up = std::chrono::steady_clock::now() + 20s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) {
      return false;
    }
    loop.run_once(nullptr, 0, 100ms);
  }
  return true;
}

class TransferLoopTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto& server = m_server.server();
    // httplib gives each kept-alive connection a thread of its pool: room for them all.
    server.new_task_queue = [] { return new httplib::ThreadPool(32); };
    server.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content("echo " + req.body, "text/plain");
    });
    server.Get("/stream", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/plain", [](size_t offset, httplib::DataSink& sink) {
        if (offset >= 12) {
          sink.done();
        } else {
          sink.write("abcd", 4);
        }
        return true;
      });
    });
    server.Get("/silent", [this](const httplib::Request&, httplib::Response& res) {
      m_server.gate().wait();
      res.set_content("late", "text/plain");
    });
    m_server.start();
  }

  ralph::testing::LoopbackServer m_server;
  TransferLoop m_loop;
};

TEST_F(TransferLoopTest, RequestsOnOneLoopEndWithTheirOwnAnswers) {
  std::vector<Request> requests;
  for (int i = 0; i < 20; ++i) {
    requests.push_back(Request{.url = m_server.url("/echo"), .body = std::to_string(i)});
  }
  std::vector<std::optional<Result<Response>>> results(requests.size());
  const BodySink none;
  const CancelToken cancel;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    ASSERT_TRUE(m_loop.start(requests[i], none, cancel, [&results, i](Result<Response> result) {
      results[i] = std::move(result);
    }));
  }
  EXPECT_EQ(m_loop.active(), requests.size());
  ASSERT_TRUE(run_until(m_loop, [&] { return m_loop.active() == 0; }));
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i] && *results[i]);
    EXPECT_EQ((*results[i])->status, 200);
    EXPECT_EQ((*results[i])->body, "echo " + std::to_string(i));
  }
}

TEST_F(TransferLoopTest, AStreamedBodyGoesToTheSinkAsItArrives) {
  std::string streamed;
  const BodySink sink = [&streamed](std::string_view chunk) {
    streamed += chunk;
    return true;
  };
  const Request request{.method = "GET", .url = m_server.url("/stream")};
  std::optional<Result<Response>> result;
  ASSERT_TRUE(m_loop.start(request, sink, {}, [&](Result<Response> r) { result = std::move(r); }));
  ASSERT_TRUE(run_until(m_loop, [&] { return result.has_value(); }));
  ASSERT_TRUE(*result);
  EXPECT_EQ(streamed, "abcdabcdabcd");
  EXPECT_TRUE((*result)->body.empty());
}

TEST_F(TransferLoopTest, ASilentServerIsAnIdleTimeoutAndACancelEndsATransfer) {
  const Request idle{.method = "GET", .url = m_server.url("/silent"), .idle_timeout = 200ms};
  const Request held{.method = "GET", .url = m_server.url("/silent")};
  CancelToken cancel;
  std::optional<Result<Response>> idle_result;
  std::optional<Result<Response>> held_result;
  ASSERT_TRUE(m_loop.start(idle, {}, {}, [&](Result<Response> r) { idle_result = std::move(r); }));
  ASSERT_TRUE(
      m_loop.start(held, {}, cancel, [&](Result<Response> r) { held_result = std::move(r); }));
  ASSERT_TRUE(run_until(m_loop, [&] { return idle_result.has_value(); }));
  ASSERT_FALSE(*idle_result);
  EXPECT_EQ(idle_result->error().kind, ErrorKind::timeout);
  EXPECT_TRUE(idle_result->error().retryable) << idle_result->error().message;
  EXPECT_FALSE(held_result.has_value());
  cancel.cancel();
  ASSERT_TRUE(run_until(m_loop, [&] { return held_result.has_value(); }));
  ASSERT_FALSE(*held_result);
  EXPECT_EQ(held_result->error().kind, ErrorKind::cancelled);
}

TEST_F(TransferLoopTest, AWakeupFromAnotherThreadEndsAWaitAndTheCallersDescriptorsArePolled) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  pollfd watched{pipe_fds[0], POLLIN, 0};
  std::thread writer([&] { (void)::write(pipe_fds[1], "x", 1); });
  // A minute's timeout: only the pipe can end this wait in time.
  const auto start = std::chrono::steady_clock::now();
  m_loop.run_once(&watched, 1, 60s);
  writer.join();
  EXPECT_NE(watched.revents & POLLIN, 0);

  std::thread waker([this] { m_loop.wakeup(); });
  m_loop.run_once(nullptr, 0, 60s);
  waker.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

TEST_F(TransferLoopTest, AnUnreachableServerIsARetryableNetworkError) {
  const Request request{.url = "http://127.0.0.1:1/nothing"};
  std::optional<Result<Response>> result;
  ASSERT_TRUE(m_loop.start(request, {}, {}, [&](Result<Response> r) { result = std::move(r); }));
  ASSERT_TRUE(run_until(m_loop, [&] { return result.has_value(); }));
  ASSERT_FALSE(*result);
  EXPECT_EQ(result->error().kind, ErrorKind::network);
  EXPECT_TRUE(result->error().retryable);
  EXPECT_NE(result->error().message.find("127.0.0.1:1"), std::string::npos);
}

} // namespace
} // namespace ralph::http
