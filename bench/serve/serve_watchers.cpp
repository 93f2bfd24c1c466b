// The driver of bench/serve.sh (issue 22): what a `ralph serve` process does with N live event
// streams open while it runs S sessions. It opens N SSE streams (GET /api/v1/stream, each its own
// connection, as N browser tabs would; `?published=1` so that each frame carries the time the
// server published it), then starts S sessions through POST /api/v1/sessions, follows them on
// the streams to their end, and prints a table row and a JSON object: streams held and refused,
// the latency from an event's publication to its arrival at each watcher (p50, p99, max, over
// every event at every watcher), events delivered against published, the server's CPU over the
// run and its memory (/proc/PID/status). All on one epoll thread here, so that the cores are
// left to the server; the POSTs come from a few threads of their own.
//
// The publication time is the server's clock and the arrival time this process's: both are
// CLOCK_REALTIME on one machine, so their difference is the delay (no skew between processes).
//
// Usage: ralph_serve_bench --url URL --token-file FILE --pid PID [--watchers N] [--sessions S]
//                          [--turns K] [--starters C] [--topic TOPIC] [--label NAME]
//                          [--json-out FILE] [--timeout-s T]
//        ralph_serve_bench summary RESULTS.jsonl   medians per label, as a Markdown table
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string token;
  int pid = 0;
  int watchers = 100;
  int sessions = 1000;
  int turns = 3; // tool turns per session before its answer (the load server's "[turns=K]")
  int starters = 8;
  std::string topic = "sessions";
  std::string label;
  std::string json_out;
  int timeout_s = 300;
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(
      stderr,
      "ralph_serve_bench: %s (see the usage at the top of bench/serve/serve_watchers.cpp)\n",
      what.c_str());
  std::exit(2);
}

int number(const std::string& flag, const std::string& value, int least) {
  char* end = nullptr;
  const long parsed = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || parsed < least || parsed > 1'000'000) {
    usage_error(flag + " " + value + ": a whole number from " + std::to_string(least));
  }
  return static_cast<int>(parsed);
}

Options parse(int argc, char** argv) {
  Options options;
  std::string url;
  std::string token_file;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage_error(flag + " needs a value");
      }
      return argv[++i];
    };
    if (flag == "--url") {
      url = value();
    } else if (flag == "--token-file") {
      token_file = value();
    } else if (flag == "--pid") {
      options.pid = number(flag, value(), 1);
    } else if (flag == "--watchers") {
      options.watchers = number(flag, value(), 1);
    } else if (flag == "--sessions") {
      options.sessions = number(flag, value(), 1);
    } else if (flag == "--turns") {
      options.turns = number(flag, value(), 0);
    } else if (flag == "--starters") {
      options.starters = number(flag, value(), 1);
    } else if (flag == "--topic") {
      options.topic = value();
    } else if (flag == "--label") {
      options.label = value();
    } else if (flag == "--json-out") {
      options.json_out = value();
    } else if (flag == "--timeout-s") {
      options.timeout_s = number(flag, value(), 1);
    } else {
      usage_error("unknown flag " + flag);
    }
  }
  // http://127.0.0.1:PORT/ (what ralph serve prints)
  const std::string prefix = "http://127.0.0.1:";
  if (url.rfind(prefix, 0) != 0) {
    usage_error("--url " + url + ": an http://127.0.0.1:PORT/ address is required");
  }
  options.port =
      number("--url", url.substr(prefix.size(), url.find('/', prefix.size()) - prefix.size()), 1);
  std::ifstream in(token_file);
  if (!in || !std::getline(in, options.token) || options.token.empty()) {
    usage_error("--token-file " + token_file + ": no token on its first line");
  }
  if (options.pid == 0) {
    usage_error("--pid: the server's process id is required (its CPU and memory are read)");
  }
  if (options.label.empty()) {
    options.label = std::to_string(options.watchers) + " watchers";
  }
  return options;
}

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What /proc says of the server.
struct ProcessFacts {
  double cpu_s = 0;   // user + system so far
  double rss_mb = 0;  // VmRSS
  double peak_mb = 0; // VmHWM
  int threads = 0;
};

ProcessFacts process_facts(int pid) {
  ProcessFacts facts;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
  const std::size_t close = text.rfind(')');
  if (close != std::string::npos) {
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    double utime = 0;
    double stime = 0;
    for (int index = 3; fields >> field && index <= 15; ++index) {
      if (index == 14) {
        utime = std::strtod(field.c_str(), nullptr);
      } else if (index == 15) {
        stime = std::strtod(field.c_str(), nullptr);
      }
    }
    facts.cpu_s = (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    const auto kb = [&] { return std::strtod(line.c_str() + line.find(':') + 1, nullptr) / 1024; };
    if (line.rfind("VmRSS:", 0) == 0) {
      facts.rss_mb = kb();
    } else if (line.rfind("VmHWM:", 0) == 0) {
      facts.peak_mb = kb();
    } else if (line.rfind("Threads:", 0) == 0) {
      facts.threads = std::atoi(line.c_str() + 8);
    }
  }
  return facts;
}

// One watcher: a connection reading one SSE stream (chunked) and timing each event's arrival.
struct Watcher {
  int fd = -1;
  enum class Phase { connecting, reading_head, streaming, done } phase = Phase::connecting;
  int status = 0;
  std::string raw;        // bytes received, not yet de-chunked
  std::size_t raw_at = 0; // consumed up to here
  std::string text;       // de-chunked SSE text, not yet split into frames
  std::size_t text_at = 0;
  std::uint64_t events = 0;
  std::uint64_t last_id = 0;
  bool out_of_order = false;
  bool ended = false; // the server ended the stream while we watched
};

// Everything the watchers saw.
struct Tally {
  std::vector<std::uint32_t> latency_us; // every event at every watcher
  std::vector<char> published;           // by event id: seen by some watcher
  std::uint64_t distinct = 0;
  bool unstamped = false; // a frame without ": published"
  // Sessions, from watcher 0's frames: id -> 1 running here, 2 ended.
  std::unordered_map<std::string, int> sessions;
  int alive = 0;
  int peak_alive = 0;
  int finished = 0;
};

// `"key":"value"` in compact JSON: the value, or empty.
std::string_view json_string(std::string_view data, std::string_view quoted_key) {
  const std::size_t at = data.find(quoted_key);
  if (at == std::string_view::npos) {
    return {};
  }
  const std::size_t start = at + quoted_key.size();
  const std::size_t end = data.find('"', start);
  return end == std::string_view::npos ? std::string_view() : data.substr(start, end - start);
}

void follow_session(Tally& tally, std::string_view data) {
  // A summary on topic `sessions` or `session:ID`: {"session":{... "hosted":B, "id":"..."}}
  if (data.rfind(R"({"session":{)", 0) != 0) {
    return;
  }
  const std::string_view id = json_string(data, R"(,"id":")");
  if (id.empty()) {
    return;
  }
  const bool hosted = data.find(R"("hosted":true)") != std::string_view::npos;
  int& state = tally.sessions[std::string(id)];
  if (state == 0 && hosted) {
    state = 1;
    tally.peak_alive = std::max(tally.peak_alive, ++tally.alive);
  } else if (state == 1 && !hosted) {
    state = 2;
    --tally.alive;
    ++tally.finished;
  }
}

// One SSE frame (without its blank line).
void on_frame(Watcher& watcher, bool reference, std::string_view frame, std::int64_t arrived,
              Tally& tally) {
  std::int64_t published = -1;
  std::uint64_t id = 0;
  std::string_view data;
  std::size_t at = 0;
  while (at < frame.size()) {
    std::size_t end = frame.find('\n', at);
    if (end == std::string_view::npos) {
      end = frame.size();
    }
    const std::string_view line = frame.substr(at, end - at);
    if (line.rfind(": published ", 0) == 0) {
      published = std::strtoll(line.data() + 12, nullptr, 10);
    } else if (line.rfind("id: ", 0) == 0) {
      id = std::strtoull(line.data() + 4, nullptr, 10);
    } else if (line.rfind("data: ", 0) == 0) {
      data = line.substr(6);
    }
    at = end + 1;
  }
  if (id == 0) {
    return; // "retry:", keep-alives
  }
  if (published < 0) {
    tally.unstamped = true;
    return;
  }
  if (id <= watcher.last_id) {
    watcher.out_of_order = true;
  }
  watcher.last_id = id;
  ++watcher.events;
  tally.latency_us.push_back(
      static_cast<std::uint32_t>(std::clamp<std::int64_t>(arrived - published, 0, UINT32_MAX)));
  if (id >= tally.published.size()) {
    tally.published.resize(std::max<std::size_t>(id + 1, tally.published.size() * 2), 0);
  }
  if (tally.published[id] == 0) {
    tally.published[id] = 1;
    ++tally.distinct;
  }
  if (reference) {
    follow_session(tally, data);
  }
}

// De-chunks what arrived and hands each complete frame on.
void on_bytes(Watcher& watcher, bool reference, std::int64_t arrived, Tally& tally) {
  std::string& raw = watcher.raw;
  if (watcher.phase == Watcher::Phase::reading_head) {
    const std::size_t end = raw.find("\r\n\r\n");
    if (end == std::string::npos) {
      return;
    }
    watcher.status = std::atoi(raw.c_str() + raw.find(' ') + 1);
    watcher.raw_at = end + 4;
    if (watcher.status != 200) {
      watcher.phase = Watcher::Phase::done;
      return;
    }
    watcher.phase = Watcher::Phase::streaming;
  }
  for (;;) {
    const std::size_t line_end = raw.find("\r\n", watcher.raw_at);
    if (line_end == std::string::npos) {
      break;
    }
    const std::size_t size = std::strtoul(raw.c_str() + watcher.raw_at, nullptr, 16);
    if (size == 0) {
      watcher.ended = true; // the last chunk: the server ended the stream
      watcher.phase = Watcher::Phase::done;
      break;
    }
    if (raw.size() < line_end + 2 + size + 2) {
      break;
    }
    watcher.text.append(raw, line_end + 2, size);
    watcher.raw_at = line_end + 2 + size + 2;
  }
  raw.erase(0, watcher.raw_at);
  watcher.raw_at = 0;
  std::string& text = watcher.text;
  for (;;) {
    const std::size_t end = text.find("\n\n", watcher.text_at);
    if (end == std::string::npos) {
      break;
    }
    on_frame(watcher, reference,
             std::string_view(text).substr(watcher.text_at, end - watcher.text_at), arrived, tally);
    watcher.text_at = end + 2;
  }
  text.erase(0, watcher.text_at);
  watcher.text_at = 0;
}

int connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 &&
      errno != EINPROGRESS) {
    close(fd);
    return -1;
  }
  return fd;
}

// The streams, on one epoll loop.
class Watchers {
public:
  explicit Watchers(const Options& options) : m_options(options), m_epoll(epoll_create1(0)) {
    m_watchers.resize(static_cast<std::size_t>(options.watchers));
    m_request = "GET /api/v1/stream?topics=" + options.topic +
                "&published=1 HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(options.port) +
                "\r\nAuthorization: Bearer " + options.token +
                "\r\nAccept: text/event-stream\r\n\r\n";
  }
  ~Watchers() {
    for (Watcher& watcher : m_watchers) {
      if (watcher.fd >= 0) {
        close(watcher.fd);
      }
    }
    close(m_epoll);
  }

  // Opens every stream, a few at a time (ralph serve's listen backlog is short), and waits for
  // each one's answer: 200, or 503 when the server holds as many as it may.
  void open_all(Clock::time_point deadline) {
    std::size_t next = 0;
    int pending = 0;
    while (Clock::now() < deadline) {
      while (next < m_watchers.size() && pending < 8) {
        Watcher& watcher = m_watchers[next];
        watcher.fd = connect_to(m_options.port);
        if (watcher.fd < 0) {
          watcher.phase = Watcher::Phase::done;
        } else {
          const int one = 1;
          setsockopt(watcher.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          epoll_event event{};
          event.events = EPOLLOUT | EPOLLIN;
          event.data.u64 = next;
          epoll_ctl(m_epoll, EPOLL_CTL_ADD, watcher.fd, &event);
          ++pending;
        }
        ++next;
      }
      if (next == m_watchers.size() && pending == 0) {
        return;
      }
      pending -= poll_once(50);
    }
  }

  // Reads until `finished` says so or the deadline; returns false at the deadline.
  template <typename Finished> bool read_until(Finished finished, Clock::time_point deadline) {
    while (!finished()) {
      if (Clock::now() >= deadline) {
        return false;
      }
      poll_once(50);
    }
    return true;
  }

  std::vector<Watcher>& all() { return m_watchers; }
  Tally& tally() { return m_tally; }

private:
  // One epoll wait; how many streams got their answer's head in it.
  int poll_once(int timeout_ms) {
    epoll_event events[256];
    const int ready = epoll_wait(m_epoll, events, 256, timeout_ms);
    int answered = 0;
    char buffer[65536];
    for (int i = 0; i < ready; ++i) {
      const std::size_t index = events[i].data.u64;
      Watcher& watcher = m_watchers[index];
      if (watcher.phase == Watcher::Phase::connecting) {
        if ((events[i].events & EPOLLOUT) == 0) {
          continue;
        }
        int error = 0;
        socklen_t length = sizeof error;
        getsockopt(watcher.fd, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error != 0 || send(watcher.fd, m_request.data(), m_request.size(), MSG_NOSIGNAL) !=
                              static_cast<ssize_t>(m_request.size())) {
          finish(watcher);
          ++answered;
          continue;
        }
        watcher.phase = Watcher::Phase::reading_head;
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.u64 = index;
        epoll_ctl(m_epoll, EPOLL_CTL_MOD, watcher.fd, &event);
        continue;
      }
      for (;;) {
        const ssize_t got = recv(watcher.fd, buffer, sizeof buffer, 0);
        if (got > 0) {
          const bool heading = watcher.phase == Watcher::Phase::reading_head;
          watcher.raw.append(buffer, static_cast<std::size_t>(got));
          on_bytes(watcher, index == 0, now_us(), m_tally);
          if (heading && watcher.phase != Watcher::Phase::reading_head) {
            ++answered;
          }
          if (watcher.phase == Watcher::Phase::done) {
            finish(watcher);
            break;
          }
          continue;
        }
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
          break;
        }
        // Closed by the server (or an error).
        if (watcher.phase == Watcher::Phase::reading_head) {
          ++answered;
        } else if (watcher.phase == Watcher::Phase::streaming) {
          watcher.ended = true;
        }
        finish(watcher);
        break;
      }
    }
    return answered;
  }

  void finish(Watcher& watcher) {
    watcher.phase = Watcher::Phase::done;
    if (watcher.fd >= 0) {
      epoll_ctl(m_epoll, EPOLL_CTL_DEL, watcher.fd, nullptr);
      close(watcher.fd);
      watcher.fd = -1;
    }
  }

  const Options& m_options;
  int m_epoll;
  std::string m_request;
  std::vector<Watcher> m_watchers;
  Tally m_tally;
};

// Starts the sessions from `options.starters` threads, each on a keep-alive connection.
struct Starts {
  int started = 0;
  int failed = 0;
  std::string first_error;
  double seconds = 0;
};

Starts start_sessions(const Options& options) {
  std::atomic<int> next{0};
  std::mutex mutex;
  Starts starts;
  const auto begin = Clock::now();
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(options.starters));
  for (int t = 0; t < options.starters; ++t) {
    threads.emplace_back([&] {
      httplib::Client client("127.0.0.1", options.port);
      client.set_keep_alive(true);
      client.set_tcp_nodelay(true);
      client.set_bearer_token_auth(options.token);
      client.set_read_timeout(60, 0);
      for (int i = next++; i < options.sessions; i = next++) {
        const std::string body = nlohmann::json{
            {"goal", "serve bench goal " + std::to_string(i) +
                         " [turns=" + std::to_string(options.turns) +
                         "]"}}.dump();
        const auto answer = client.Post("/api/v1/sessions", body, "application/json");
        const std::lock_guard lock(mutex);
        if (answer && answer->status == 201) {
          ++starts.started;
        } else {
          ++starts.failed;
          if (starts.first_error.empty()) {
            starts.first_error = answer ? std::to_string(answer->status) + " " + answer->body
                                        : httplib::to_string(answer.error());
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  starts.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  return starts;
}

double percentile_ms(std::vector<std::uint32_t>& values, double share) {
  if (values.empty()) {
    return 0;
  }
  const auto at = static_cast<std::size_t>(share * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at] / 1000.0;
}

double cpu_s_of_this_process() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto s = [](const timeval& time) {
    return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
  };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

int run(const Options& options) {
  const ProcessFacts idle = process_facts(options.pid);
  const auto deadline = Clock::now() + std::chrono::seconds(options.timeout_s);
  Watchers watchers(options);
  const auto opening = Clock::now();
  watchers.open_all(deadline);
  const double open_s = std::chrono::duration<double>(Clock::now() - opening).count();
  int held = 0;
  int refused = 0;
  for (const Watcher& watcher : watchers.all()) {
    held += watcher.status == 200 && watcher.phase == Watcher::Phase::streaming ? 1 : 0;
    refused += watcher.status == 503 ? 1 : 0;
  }
  if (held == 0) {
    std::fprintf(stderr, "ralph_serve_bench: no stream was held (%d refused with 503)\n", refused);
    return 1;
  }
  const ProcessFacts watching = process_facts(options.pid);
  const double client_cpu_before = cpu_s_of_this_process();

  // The sessions start on threads of their own while this thread reads the streams.
  Starts starts;
  std::atomic<bool> posted{false};
  std::thread starter([&] {
    starts = start_sessions(options);
    posted = true;
  });
  Tally& tally = watchers.tally();
  const auto begin = Clock::now();
  // Watcher 0 follows the sessions; then every live stream must have caught up with it.
  const bool followed =
      watchers.read_until([&] { return posted && tally.finished >= starts.started; }, deadline);
  starter.join();
  const auto followed_at = Clock::now();
  const auto caught_up = [&] {
    for (const Watcher& watcher : watchers.all()) {
      if (watcher.phase == Watcher::Phase::streaming && watcher.events < tally.distinct) {
        return false;
      }
    }
    return true;
  };
  const bool drained =
      followed && watchers.read_until(caught_up, std::min(deadline, Clock::now() + 60s));
  const double wall_s = std::chrono::duration<double>(Clock::now() - begin).count();
  const double drain_s = std::chrono::duration<double>(Clock::now() - followed_at).count();
  const ProcessFacts after = process_facts(options.pid);
  const double client_cpu_s = cpu_s_of_this_process() - client_cpu_before;
  if (tally.unstamped) {
    std::fprintf(stderr, "ralph_serve_bench: frames without ': published' (a ralph serve without "
                         "?published=1)\n");
    return 1;
  }

  std::uint64_t delivered = 0;
  int ended = 0;
  int out_of_order = 0;
  for (const Watcher& watcher : watchers.all()) {
    if (watcher.status != 200) {
      continue;
    }
    delivered += watcher.events;
    ended += watcher.ended ? 1 : 0;
    out_of_order += watcher.out_of_order ? 1 : 0;
  }
  const std::uint64_t expected = tally.distinct * static_cast<std::uint64_t>(held);
  const double cpu_s = after.cpu_s - watching.cpu_s;
  nlohmann::json report = {
      {"label", options.label},
      {"watchers", options.watchers},
      {"topic", options.topic},
      {"held", held},
      {"refused", refused},
      {"open_s", open_s},
      {"sessions", options.sessions},
      {"started", starts.started},
      {"start_failed", starts.failed},
      {"start_s", starts.seconds},
      {"peak_alive", tally.peak_alive},
      {"finished", tally.finished},
      {"published", tally.distinct},
      {"delivered", delivered},
      {"lost", expected - std::min(expected, delivered)},
      {"streams_ended", ended},
      {"out_of_order", out_of_order},
      {"p50_ms", percentile_ms(tally.latency_us, 0.50)},
      {"p99_ms", percentile_ms(tally.latency_us, 0.99)},
      {"max_ms", percentile_ms(tally.latency_us, 1.0)},
      {"wall_s", wall_s},
      {"drain_s", drain_s},
      {"server_cpu_s", cpu_s},
      {"server_cpu_share", cpu_s / wall_s},
      {"rss_idle_mb", idle.rss_mb},
      {"rss_watching_mb", watching.rss_mb},
      {"peak_rss_mb", after.peak_mb},
      {"server_threads", watching.threads},
      {"client_cpu_s", client_cpu_s},
      {"complete", followed && drained},
  };
  std::printf("%-14s %5s %5s %6s %6s %9s %9s %8s %8s %8s %7s %7s %8s\n", "label", "held", "alive",
              "start", "wall", "published", "delivered", "lost", "p50 ms", "p99 ms", "max ms",
              "cpu s", "peak MB");
  std::printf("%-14s %5d %5d %6.2f %6.2f %9llu %9llu %8llu %8.1f %8.1f %7.0f %7.2f %8.1f\n",
              options.label.c_str(), held, tally.peak_alive, starts.seconds, wall_s,
              static_cast<unsigned long long>(tally.distinct),
              static_cast<unsigned long long>(delivered),
              static_cast<unsigned long long>(report["lost"].get<std::uint64_t>()),
              report["p50_ms"].get<double>(), report["p99_ms"].get<double>(),
              report["max_ms"].get<double>(), cpu_s, after.peak_mb);
  if (starts.failed > 0) {
    std::printf("%d sessions did not start; the first: %s\n", starts.failed,
                starts.first_error.c_str());
  }
  if (!followed || !drained) {
    std::printf("incomplete: %s\n", !followed ? "the sessions did not all end before the timeout"
                                              : "some streams had not caught up after 60 s");
  }
  std::printf("%s\n", report.dump().c_str());
  if (!options.json_out.empty()) {
    std::ofstream(options.json_out, std::ios::app) << report.dump() << "\n";
  }
  return followed && drained && starts.failed == 0 ? 0 : 1;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[(values.size() - 1) / 2];
}

// Medians per label of what matters, in the order the labels first appear.
int summary(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "ralph_serve_bench: cannot read %s\n", path.c_str());
    return 2;
  }
  std::vector<std::string> labels;
  std::map<std::string, std::vector<nlohmann::json>> rows;
  std::string line;
  while (std::getline(in, line)) {
    auto row = nlohmann::json::parse(line, nullptr, false);
    if (row.is_discarded() || !row.contains("label")) {
      continue;
    }
    const std::string label = row["label"];
    if (rows[label].empty()) {
      labels.push_back(label);
    }
    rows[label].push_back(std::move(row));
  }
  const char* fields[] = {"held",   "peak_alive", "published", "lost",         "p50_ms",
                          "p99_ms", "max_ms",     "wall_s",    "server_cpu_s", "peak_rss_mb"};
  std::printf("| label | runs |");
  for (const char* field : fields) {
    std::printf(" %s |", field);
  }
  std::printf("\n| --- | --- |");
  for (std::size_t i = 0; i < std::size(fields); ++i) {
    std::printf(" ---: |");
  }
  std::printf("\n");
  for (const std::string& label : labels) {
    std::printf("| %s | %zu |", label.c_str(), rows[label].size());
    for (const char* field : fields) {
      std::vector<double> values;
      for (const nlohmann::json& row : rows[label]) {
        values.push_back(row.value(field, 0.0));
      }
      std::printf(" %.*f |", values.empty() || median(values) >= 100 ? 0 : 1, median(values));
    }
    std::printf("\n");
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "summary") {
    if (argc != 3) {
      usage_error("summary wants RESULTS.jsonl");
    }
    return summary(argv[2]);
  }
  return run(parse(argc, argv));
}
