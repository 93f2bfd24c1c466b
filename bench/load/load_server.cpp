// The model server of bench/load.sh: an OpenAI Chat Completions fake (the wire bodies of
// tests/fake_provider) that holds every answer for a set latency and serves thousands of
// keep-alive connections at once from one thread. A thread per connection (cpp-httplib, as the
// test fake does) would need 1000+ threads and a listen backlog above httplib's fixed 5, and
// would spend the two cores this machine has on switching between them: here one epoll loop
// parks each request on a FIFO of deadlines (every answer waits the same latency, so deadlines
// arrive in order) and ralph's process keeps the cores.
//
// Each conversation is the one the goal asks for: the goal's "[turns=K]" (default 3) tool turns
// (read_file of notes.txt, or "echo hi" through the shell with "[tool=shell]"), then an answer.
// The tool results already in the request say which turn is next.
//
// Usage: ralph_load_server LATENCY_MS   prints its base URL, serves until stdin closes.
#include "fake_provider/fake_wire.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <iostream>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string>
#include <string_view>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <unordered_map>

namespace {

using Clock = std::chrono::steady_clock;
using ralph::testing::FakeTurn;

std::size_t count_of(std::string_view text, std::string_view needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// The number after `key` in `body` ("[turns=" -> 200), or `fallback`.
int marker(std::string_view body, std::string_view key, int fallback) {
  const std::size_t at = body.find(key);
  return at == std::string_view::npos ? fallback : std::atoi(body.data() + at + key.size());
}

// The agent's next turn. Substring counts instead of a JSON parse: the server must stay cheap
// beside the process it measures, and ralph writes compact JSON ("role":"tool").
FakeTurn next_turn(std::string_view body) {
  const std::size_t results = count_of(body, R"("role":"tool")");
  const auto tool_turns = static_cast<std::size_t>(marker(body, "[turns=", 3));
  FakeTurn turn;
  if (results >= tool_turns) {
    turn.text = "The notes say what the goal needs; done.";
    return turn;
  }
  turn.text = "Reading the notes.";
  if (body.find("[tool=shell]") != std::string_view::npos) {
    turn.tool_calls.push_back({.name = "shell", .arguments = R"({"command":"echo hi"})"});
  } else {
    turn.tool_calls.push_back({.name = "read_file", .arguments = R"({"path":"notes.txt"})"});
  }
  return turn;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The whole HTTP/1.1 response for one request (one write when the socket takes it).
std::string response_for(std::string_view head, std::string_view body, int& next_call_id) {
  if (head.substr(0, head.find(' ')) != "POST" ||
      head.find("/chat/completions") == std::string_view::npos) {
    return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
  }
  ralph::testing::WireRequest wire;
  wire.stream = body.find(R"("stream":true)") != std::string_view::npos;
  wire.include_usage = body.find(R"("include_usage":true)") != std::string_view::npos;
  wire.model = "load";
  wire.body_bytes = body.size();
  wire.number = next_call_id;
  const ralph::testing::WireAnswer answer = ralph::testing::openai_answer(
      next_turn(body), wire, ralph::testing::OpenAiFlavor::openai, next_call_id);
  std::string out = "HTTP/1.1 " + std::to_string(answer.status) +
                    " OK\r\nContent-Type: " + answer.content_type + "\r\n";
  for (const auto& [name, value] : answer.headers) {
    out += name + ": " + value + "\r\n";
  }
  if (!answer.chunked) {
    std::string all;
    for (const std::string& write : answer.writes) {
      all += write;
    }
    return out + "Content-Length: " + std::to_string(all.size()) + "\r\n\r\n" + all;
  }
  out += "Transfer-Encoding: chunked\r\n\r\n";
  char size[32];
  for (const std::string& write : answer.writes) {
    std::snprintf(size, sizeof size, "%zx\r\n", write.size());
    out += size + write + "\r\n";
  }
  return out + "0\r\n\r\n";
}

struct Connection {
  std::string in;
  std::string out;
  bool waiting = false; // a request is parked until its deadline
};

struct Parked {
  Clock::time_point due;
  int fd;
  std::string response;
};

class LoadServer {
public:
  explicit LoadServer(std::chrono::milliseconds latency) : m_latency(latency) {}

  // Binds 127.0.0.1 on a free port; returns it, or 0 on failure (errno says why).
  int bind_port() {
    m_listen = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    const int one = 1;
    setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (bind(m_listen, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(m_listen, 4096) != 0 ||
        getsockname(m_listen, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      return 0;
    }
    m_epoll = epoll_create1(0);
    add(m_listen);
    return ntohs(address.sin_port);
  }

  // Serves until `stop_fd` becomes readable or hangs up.
  void serve(int stop_fd) {
    add(stop_fd);
    epoll_event events[256];
    for (;;) {
      const int ready = epoll_wait(m_epoll, events, 256, timeout_ms());
      for (int i = 0; i < ready; ++i) {
        const int fd = events[i].data.fd;
        if (fd == stop_fd) {
          return;
        }
        if (fd == m_listen) {
          accept_all();
        } else if ((events[i].events & EPOLLOUT) != 0 && !m_connections[fd].out.empty()) {
          flush(fd);
        } else {
          read_from(fd);
        }
      }
      release_due();
    }
  }

private:
  void add(int fd) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &event);
  }

  int timeout_ms() const {
    if (m_parked.empty()) {
      return -1;
    }
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(m_parked.front().due - Clock::now());
    return static_cast<int>(std::max<std::int64_t>(0, left.count()));
  }

  void accept_all() {
    for (;;) {
      const int fd = accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK);
      if (fd < 0) {
        return;
      }
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      m_connections[fd] = Connection{};
      add(fd);
    }
  }

  void close_connection(int fd) {
    epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
    close(fd);
    m_connections.erase(fd);
  }

  void read_from(int fd) {
    Connection& connection = m_connections[fd];
    char buffer[65536];
    for (;;) {
      const ssize_t got = recv(fd, buffer, sizeof buffer, 0);
      if (got > 0) {
        connection.in.append(buffer, static_cast<std::size_t>(got));
        continue;
      }
      if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
        // Parked answers for a closed connection are dropped when their deadline comes.
        close_connection(fd);
        return;
      }
      break;
    }
    take_request(fd, connection);
  }

  // Parks the next whole request of `connection` (one at a time: a client that pipelines waits).
  void take_request(int fd, Connection& connection) {
    if (connection.waiting) {
      return;
    }
    const std::size_t head_end = connection.in.find("\r\n\r\n");
    if (head_end == std::string::npos) {
      return;
    }
    const std::string head = lower(std::string_view(connection.in).substr(0, head_end));
    std::size_t length = 0;
    if (const std::size_t at = head.find("\r\ncontent-length:"); at != std::string::npos) {
      length = std::strtoul(head.c_str() + at + 17, nullptr, 10);
    }
    if (connection.in.size() < head_end + 4 + length) {
      if (head.find("\r\nexpect: 100-continue") != std::string::npos &&
          connection.in.size() == head_end + 4) {
        send_now(fd, connection, "HTTP/1.1 100 Continue\r\n\r\n");
      }
      return;
    }
    std::string response =
        response_for(std::string_view(connection.in).substr(0, head_end),
                     std::string_view(connection.in).substr(head_end + 4, length), m_next_call_id);
    connection.in.erase(0, head_end + 4 + length);
    connection.waiting = true;
    m_parked.push_back({Clock::now() + m_latency, fd, std::move(response)});
  }

  void release_due() {
    const auto now = Clock::now();
    while (!m_parked.empty() && m_parked.front().due <= now) {
      Parked parked = std::move(m_parked.front());
      m_parked.pop_front();
      const auto found = m_connections.find(parked.fd);
      if (found == m_connections.end() || !found->second.waiting) {
        continue; // closed meanwhile (its fd may even be a new connection's, not waiting)
      }
      found->second.waiting = false;
      send_now(parked.fd, found->second, parked.response);
      if (m_connections.count(parked.fd) != 0) {
        take_request(parked.fd, m_connections[parked.fd]);
      }
    }
  }

  void send_now(int fd, Connection& connection, std::string_view data) {
    connection.out.append(data);
    flush(fd);
  }

  void flush(int fd) {
    Connection& connection = m_connections[fd];
    while (!connection.out.empty()) {
      const ssize_t sent = send(fd, connection.out.data(), connection.out.size(), MSG_NOSIGNAL);
      if (sent < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          break;
        }
        close_connection(fd);
        return;
      }
      connection.out.erase(0, static_cast<std::size_t>(sent));
    }
    epoll_event event{};
    event.events = EPOLLIN | (connection.out.empty() ? 0U : static_cast<unsigned>(EPOLLOUT));
    event.data.fd = fd;
    epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &event);
  }

  std::chrono::milliseconds m_latency;
  int m_listen = -1;
  int m_epoll = -1;
  int m_next_call_id = 1;
  std::unordered_map<int, Connection> m_connections;
  std::deque<Parked> m_parked;
};

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ralph_load_server LATENCY_MS\n");
    return 2;
  }
  LoadServer server(std::chrono::milliseconds(std::strtol(argv[1], nullptr, 10)));
  const int port = server.bind_port();
  if (port == 0) {
    std::fprintf(stderr, "ralph_load_server: cannot listen on 127.0.0.1: %s\n",
                 std::strerror(errno));
    return 1;
  }
  std::cout << "http://127.0.0.1:" << port << std::endl;
  server.serve(STDIN_FILENO);
  return 0;
}
