// `ralph serve`'s live event streams end to end: the real binary, raw connections as a browser's
// EventSource makes them, the fake provider server as the model of the sessions it starts.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace ralph::testing {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One connection to the server, read as it arrives (an SSE stream never ends by itself).
class Connection {
public:
  explicit Connection(int port) {
    m_fd = socket(AF_INET, SOCK_STREAM, 0);
    // A bound on every read, so a server that sends nothing fails the test instead of hanging it.
    timeval limit{.tv_sec = 20, .tv_usec = 0};
    setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    m_connected = connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~Connection() { close(m_fd); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool get(const std::string& target, const std::string& token, int port) {
    const std::string request =
        "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
        "\r\nAuthorization: Bearer " + token + "\r\nAccept: text/event-stream\r\n\r\n";
    return m_connected && send(m_fd, request.data(), request.size(), MSG_NOSIGNAL) ==
                              static_cast<ssize_t>(request.size());
  }
  // Reads until what arrived contains `needle` (true), or the server closed or went quiet, or
  // 60 s passed (a stream's keep-alives never let it go quiet).
  bool read_until(const std::string& needle) {
    const auto deadline = std::chrono::steady_clock::now() + seconds(60);
    char buffer[8192];
    while (m_read.find(needle) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) {
        return false;
      }
      const ssize_t got = recv(m_fd, buffer, sizeof buffer, 0);
      if (got <= 0) {
        return false;
      }
      m_read.append(buffer, static_cast<std::size_t>(got));
    }
    return true;
  }
  const std::string& read() const { return m_read; }
  int fd() const { return m_fd; }

private:
  int m_fd = -1;
  bool m_connected = false;
  std::string m_read;
};

class ServeStreams : public ::testing::Test {
protected:
  // Starts `ralph serve --port 0` in the workspace; its port and API token.
  void start(std::vector<std::string> extra) {
    std::vector<std::string> args{"serve",
                                  "--port",
                                  "0",
                                  "--model",
                                  "openai-compat/test-model",
                                  "--base-url",
                                  model.base_url() + "/v1"};
    args.insert(args.end(), extra.begin(), extra.end());
    serve = std::make_unique<RalphProcess>(
        args, workspace.path(), std::map<std::string, std::string>{}, Streams::stderr_pipe);
    ASSERT_TRUE(serve->read_until("(the link above signs in once)", seconds(60))) << serve->live();
    const std::string& err = serve->live();
    const std::string marker = "listening on http://127.0.0.1:";
    port = std::stoi(err.substr(err.find(marker) + marker.size()));
    std::ifstream in(workspace.path() / ".ralph" / "serve" / "token");
    std::getline(in, token);
    ASSERT_FALSE(token.empty());
  }

  void TearDown() override {
    if (serve) {
      serve->signal(SIGINT);
      const RalphOutput out = serve->wait();
      EXPECT_EQ(out.exit_code, 0) << out.err;
    }
  }

  std::string stream_target(const std::string& query) const {
    return "/api/v1/stream?topics=sessions" + query;
  }

  FakeProviderServer model;
  TempDir workspace;
  std::unique_ptr<RalphProcess> serve;
  int port = 0;
  std::string token;
};

TEST_F(ServeStreams, MaxStreamsHoldsThatManyStreamsAndRefusesTheNext) {
  // Above the default of 64.
  ASSERT_NO_FATAL_FAILURE(start({"--max-streams", "70"}));
  std::vector<std::unique_ptr<Connection>> held;
  for (int i = 0; i < 70; ++i) {
    held.push_back(std::make_unique<Connection>(port));
    ASSERT_TRUE(held.back()->get(stream_target(""), token, port));
    ASSERT_TRUE(held.back()->read_until("retry: 2000"))
        << "stream " << i << ": " << held.back()->read();
    EXPECT_THAT(held.back()->read(), HasSubstr("HTTP/1.1 200 OK"));
  }
  Connection refused(port);
  ASSERT_TRUE(refused.get(stream_target(""), token, port));
  ASSERT_TRUE(refused.read_until("too_many_streams")) << refused.read();
  EXPECT_THAT(refused.read(), HasSubstr("HTTP/1.1 503"));
  EXPECT_THAT(refused.read(), HasSubstr("Retry-After: 5"));
}

TEST_F(ServeStreams, PublishedStampsEachFrameWithTheTimeTheServerPublishedIt) {
  model.push(text_turn("Done."));
  ASSERT_NO_FATAL_FAILURE(start({}));
  Connection stamped(port);
  ASSERT_TRUE(stamped.get(stream_target("&published=1"), token, port));
  ASSERT_TRUE(stamped.read_until("retry: 2000")) << stamped.read();
  Connection plain(port);
  ASSERT_TRUE(plain.get(stream_target(""), token, port));
  ASSERT_TRUE(plain.read_until("retry: 2000")) << plain.read();

  const std::int64_t before = now_us();
  httplib::Client client("127.0.0.1", port);
  client.set_bearer_token_auth(token);
  const auto started =
      client.Post("/api/v1/sessions", R"({"goal": "say done"})", "application/json");
  ASSERT_TRUE(started);
  ASSERT_EQ(started->status, 201) << started->body;
  // The session's last summary: it no longer runs here.
  ASSERT_TRUE(stamped.read_until(R"("hosted":false)")) << stamped.read();
  const std::int64_t after = now_us();
  ASSERT_TRUE(plain.read_until(R"("hosted":false)")) << plain.read();

  int frames = 0;
  const std::string& text = stamped.read();
  for (std::size_t at = text.find("\nid: "); at != std::string::npos;
       at = text.find("\nid: ", at + 1)) {
    // The line before each event's id: ": published MICROSECONDS".
    const std::size_t line = text.rfind('\n', at - 1) + 1;
    ASSERT_EQ(text.compare(line, 12, ": published "), 0) << text.substr(line, at - line);
    const std::int64_t published = std::stoll(text.substr(line + 12, at - line - 12));
    EXPECT_GE(published, before);
    EXPECT_LE(published, after);
    ++frames;
  }
  EXPECT_GE(frames, 2) << "the session's first and last summaries at least: " << text;
  EXPECT_THAT(plain.read(), Not(HasSubstr(": published"))) << "only when asked for";

  Connection bad(port);
  ASSERT_TRUE(bad.get(stream_target("&published=yes"), token, port));
  ASSERT_TRUE(bad.read_until("published: 0 or 1")) << bad.read();
  EXPECT_THAT(bad.read(), HasSubstr("HTTP/1.1 400"));
}

// A connection's small writes (an SSE frame, a JSON answer after its headers) go out at once:
// with Nagle's algorithm on, each waited for the client's delayed ACK of the previous one, up to
// 40 ms on Linux. Read from the server's own socket, not timed.
TEST_F(ServeStreams, ConnectionsSendSmallWritesWithoutWaitingForAnAck) {
  ASSERT_NO_FATAL_FAILURE(start({}));
  Connection stream(port);
  ASSERT_TRUE(stream.get(stream_target(""), token, port));
  ASSERT_TRUE(stream.read_until("retry: 2000")) << stream.read();
  sockaddr_in mine{};
  socklen_t length = sizeof mine;
  ASSERT_EQ(getsockname(stream.fd(), reinterpret_cast<sockaddr*>(&mine), &length), 0);

  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, serve->pid(), 0));
  if (pidfd < 0 && (errno == ENOSYS || errno == EPERM)) {
    GTEST_SKIP() << "this kernel does not lend another process's sockets (pidfd_open)";
  }
  ASSERT_GE(pidfd, 0) << std::strerror(errno);
  int nodelay = -1;
  bool found = false;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(serve->pid()) + "/fd")) {
    std::error_code error;
    if (std::filesystem::read_symlink(entry.path(), error).string().rfind("socket:", 0) != 0) {
      continue;
    }
    const int theirs = std::stoi(entry.path().filename().string());
    const int copy = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, theirs, 0));
    if (copy < 0) {
      if (errno == EPERM) {
        close(pidfd);
        GTEST_SKIP() << "ptrace rules keep this test from reading ralph's sockets";
      }
      continue;
    }
    sockaddr_in peer{};
    socklen_t peer_length = sizeof peer;
    if (getpeername(copy, reinterpret_cast<sockaddr*>(&peer), &peer_length) == 0 &&
        peer.sin_family == AF_INET && peer.sin_port == mine.sin_port) {
      socklen_t size = sizeof nodelay;
      getsockopt(copy, IPPROTO_TCP, TCP_NODELAY, &nodelay, &size);
      found = true;
    }
    close(copy);
  }
  close(pidfd);
  ASSERT_TRUE(found) << "the server's end of the stream's connection";
  EXPECT_NE(nodelay, 0) << "TCP_NODELAY is off on the server's connection";
}

} // namespace
} // namespace ralph::testing
