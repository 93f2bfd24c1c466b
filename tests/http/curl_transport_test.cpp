#include "loopback_server.h"

#include "ralph/http/curl_transport.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace ralph::http {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

// libcurl wants curl_global_init before anything else, as `main` does it.
class CurlEnvironment : public ::testing::Environment {
public:
  void SetUp() override { m_global = std::make_unique<CurlGlobal>(); }
  void TearDown() override { m_global.reset(); }

private:
  std::unique_ptr<CurlGlobal> m_global;
};

[[maybe_unused]] const auto* const k_curl_environment =
    ::testing::AddGlobalTestEnvironment(new CurlEnvironment);

class CurlTransportTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto& server = m_server.server();
    server.Get("/json", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("X-Request-ID", "req_123");
      res.set_content(R"({"ok":true})", "application/json");
    });
    server.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.method + " " + req.get_header_value("Content-Type") + " " + req.body,
                      "text/plain");
    });
    server.Get("/port", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(std::to_string(req.remote_port), "text/plain");
    });
    server.Get("/error", [](const httplib::Request&, httplib::Response& res) {
      res.status = 503;
      res.set_content(R"({"error":{"message":"overloaded"}})", "application/json");
    });
    server.Get("/chunked", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider(
          "text/event-stream", [](size_t offset, httplib::DataSink& sink) {
            const int piece = static_cast<int>(offset / 8);
            if (piece == 5) {
              sink.done();
              return true;
            }
            const std::string text = "piece-" + std::to_string(piece) + "\n";
            return sink.write(text.data(), text.size());
          });
    });
    // Sends one piece, then stalls until the test releases the gate.
    server.Get("/stall", [this](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream",
                                       [this](size_t offset, httplib::DataSink& sink) {
                                         if (offset == 0) {
                                           return sink.write("first", 5);
                                         }
                                         m_stalled.set_value();
                                         m_server.gate().wait();
                                         return false;
                                       });
    });
    // Sends some bytes, then drops the connection before the body is complete.
    server.Get("/drop", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream",
                                       [](size_t offset, httplib::DataSink& sink) {
                                         if (offset == 0) {
                                           return sink.write("partial", 7);
                                         }
                                         return false;
                                       });
    });
    // No Content-Length and no chunking: the body ends when the server closes the connection.
    server.Get("/close-delimited", [](const httplib::Request&, httplib::Response& res) {
      res.set_content_provider("text/event-stream", [](size_t offset, httplib::DataSink& sink) {
        if (offset > 0) {
          sink.done();
          return true;
        }
        return sink.write("data: x\n\n", 9);
      });
    });
    server.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(200'000, 'z'), "text/plain");
    });
    server.Get(R"(http://ralph\.invalid/proxied)",
               [](const httplib::Request&, httplib::Response& res) {
                 res.set_content("via proxy", "text/plain");
               });
    m_server.start();
  }

  Request get(const std::string& path) {
    Request request;
    request.method = "GET";
    request.url = m_server.url(path);
    return request;
  }

  ralph::testing::LoopbackServer m_server;
  std::promise<void> m_stalled;
  CurlTransport m_transport; // destroyed first: its keep-alive connection must close first
  CancelToken m_cancel;
};

BodySink collect_into(std::string& out, int* chunks = nullptr) {
  return [&out, chunks](std::string_view chunk) {
    out.append(chunk);
    if (chunks != nullptr) {
      ++*chunks;
    }
    return true;
  };
}

TEST_F(CurlTransportTest, ReturnsJsonBodyAndLowerCasedHeaders) {
  auto response = m_transport.send(get("/json"), {}, m_cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, R"({"ok":true})");
  EXPECT_EQ(response->header("x-request-id"), "req_123");
  EXPECT_EQ(response->header("content-type"), "application/json");
  EXPECT_EQ(response->header("X-Request-ID"), "");
}

TEST_F(CurlTransportTest, SendsMethodHeadersAndBody) {
  Request request;
  request.url = m_server.url("/echo");
  request.headers = {{"Content-Type", "application/json"}};
  request.body = std::string(5000, 'b'); // large enough that curl would wait for 100-continue
  const auto started = SteadyClock::now();
  auto response = m_transport.send(request, {}, m_cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->body, "POST application/json " + request.body);
  EXPECT_LT(SteadyClock::now() - started, 900ms);
}

TEST_F(CurlTransportTest, StreamsChunkedBodyToSink) {
  std::string received;
  int chunks = 0;
  auto response = m_transport.send(get("/chunked"), collect_into(received, &chunks), m_cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(received, "piece-0\npiece-1\npiece-2\npiece-3\npiece-4\n");
  EXPECT_GE(chunks, 1);
  EXPECT_TRUE(response->body.empty());
}

TEST_F(CurlTransportTest, StreamsConnectionCloseDelimitedBody) {
  std::string received;
  auto response = m_transport.send(get("/close-delimited"), collect_into(received), m_cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->header("transfer-encoding"), "");
  EXPECT_EQ(received, "data: x\n\n");
}

TEST_F(CurlTransportTest, CollectsNon2xxBodyInsteadOfStreaming) {
  std::string received;
  auto response = m_transport.send(get("/error"), collect_into(received), m_cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(response->body, R"({"error":{"message":"overloaded"}})");
  EXPECT_TRUE(received.empty());
}

TEST_F(CurlTransportTest, DecodesCompressedResponses) {
  auto response = m_transport.send(get("/big"), {}, m_cancel);
  ASSERT_TRUE(response) << response.error().message;
  // libcurl offers every encoding it supports; httplib picks br or gzip.
  EXPECT_NE(response->header("content-encoding"), "");
  EXPECT_EQ(response->body, std::string(200'000, 'z'));
}

TEST_F(CurlTransportTest, ReusesConnectionBetweenRequests) {
  auto first = m_transport.send(get("/port"), {}, m_cancel);
  auto second = m_transport.send(get("/port"), {}, m_cancel);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->body, second->body);
}

TEST_F(CurlTransportTest, ConnectionRefusedIsRetryableNetworkError) {
  // A bound socket that never listens: nobody else can take the port, and connects are refused.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(addr);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length), 0);
  Request request = get("/");
  request.url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/v1?key=secret";
  auto response = m_transport.send(request, {}, m_cancel);
  ::close(fd);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::network);
  EXPECT_TRUE(response.error().retryable);
  EXPECT_EQ(response.error().message.find("secret"), std::string::npos) << response.error().message;
}

TEST_F(CurlTransportTest, IdleTimeoutAfterSilenceIsRetryableTimeout) {
  Request request = get("/stall");
  request.idle_timeout = 200ms;
  std::string received;
  const auto started = SteadyClock::now();
  auto response = m_transport.send(request, collect_into(received), m_cancel);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::timeout);
  EXPECT_TRUE(response.error().retryable);
  EXPECT_EQ(received, "first");
  EXPECT_GE(SteadyClock::now() - started, 200ms);
  EXPECT_LT(SteadyClock::now() - started, 2s);
}

TEST_F(CurlTransportTest, TotalTimeoutIsRetryableTimeout) {
  Request request = get("/stall");
  request.idle_timeout = 0ms;
  request.total_timeout = 300ms;
  auto response = m_transport.send(request, {}, m_cancel);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::timeout);
  EXPECT_TRUE(response.error().retryable);
}

TEST_F(CurlTransportTest, CancelFromAnotherThreadStopsPromptly) {
  auto stalled = m_stalled.get_future();
  SteadyClock::time_point cancelled_at;
  std::thread canceller([&] {
    stalled.wait();
    cancelled_at = SteadyClock::now();
    m_cancel.cancel();
  });
  auto response = m_transport.send(get("/stall"), {}, m_cancel);
  const auto returned_at = SteadyClock::now();
  canceller.join();
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::cancelled);
  EXPECT_LT(returned_at - cancelled_at, 500ms);
}

TEST_F(CurlTransportTest, SinkReturningFalseCancels) {
  auto response = m_transport.send(
      get("/chunked"), [](std::string_view) { return false; }, m_cancel);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::cancelled);
}

TEST_F(CurlTransportTest, SinkExceptionPropagatesAfterTransfer) {
  const BodySink throwing = [](std::string_view) -> bool { throw std::runtime_error("sink"); };
  EXPECT_THROW((void)m_transport.send(get("/chunked"), throwing, m_cancel), std::runtime_error);
  // The handle is still usable afterwards.
  auto response = m_transport.send(get("/json"), {}, m_cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
}

TEST_F(CurlTransportTest, DroppedConnectionMidBodyIsNetworkErrorWithPartialBytes) {
  std::string received;
  auto response = m_transport.send(get("/drop"), collect_into(received), m_cancel);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::network);
  EXPECT_TRUE(response.error().retryable);
  EXPECT_EQ(received, "partial");
}

// Sets an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const std::string& value) : m_name(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(m_name); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* m_name;
};

TEST_F(CurlTransportTest, HonoursUpperCaseHttpProxy) {
  if (std::getenv("http_proxy") != nullptr || std::getenv("HTTP_PROXY") != nullptr ||
      std::getenv("no_proxy") != nullptr || std::getenv("NO_PROXY") != nullptr) {
    GTEST_SKIP() << "proxy variables already set in this environment";
  }
  const ScopedEnv proxy("HTTP_PROXY", m_server.url(""));
  Request request = get("");
  request.url = "http://ralph.invalid/proxied";
  auto response = m_transport.send(request, {}, m_cancel);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->body, "via proxy");
}

} // namespace
} // namespace ralph::http
