#pragma once

#include <httplib.h>

#include <future>
#include <string>
#include <sys/socket.h>
#include <thread>

namespace ralph::testing {

// An httplib::Server on 127.0.0.1 with a free port, running in its own thread. Register routes
// through server() BEFORE start(). Handlers that must stall wait on gate(), which opens when
// the test calls release() or at destruction, so no test ever waits on a sleep.
class LoopbackServer {
public:
  LoopbackServer() : m_gate(m_release.get_future().share()) {
    // Without TCP_NODELAY a reused connection waits 40 ms on delayed ACKs (httplib writes
    // headers and body separately).
    m_server.set_tcp_nodelay(true);
    m_server.set_socket_options([this](socket_t fd) {
      m_listener = fd;
      const int yes = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    m_port = m_server.bind_to_any_port("127.0.0.1");
    // Debian's compiled httplib listens with a backlog of 5: hundreds of clients connecting at
    // once would wait on SYN retransmits (a second and more each). Listening again raises it.
    if (m_listener >= 0) {
      ::listen(m_listener, SOMAXCONN);
    }
  }
  ~LoopbackServer() {
    release();
    if (m_thread.joinable()) {
      // stop() is a no-op until the accept loop runs; it is running once start() returned.
      m_server.stop();
      m_thread.join();
    }
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  httplib::Server& server() { return m_server; }

  void start() {
    m_thread = std::thread([this] { m_server.listen_after_bind(); });
    while (!m_server.is_running()) {
      std::this_thread::yield();
    }
  }

  int port() const { return m_port; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(m_port) + path;
  }

  const std::shared_future<void>& gate() const { return m_gate; }
  void release() {
    if (!m_released) {
      m_released = true;
      m_release.set_value();
    }
  }

private:
  httplib::Server m_server;
  int m_port = 0;
  socket_t m_listener = -1;
  std::thread m_thread;
  std::promise<void> m_release;
  std::shared_future<void> m_gate;
  bool m_released = false;
};

} // namespace ralph::testing
