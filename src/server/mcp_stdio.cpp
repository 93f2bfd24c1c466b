#include "server/hosting.h"
#include "server/mcp_tools.h"

#include "ralph/core/try.h"
#include "ralph/mcp/dispatcher.h"
#include "ralph/server/mcp_serve.h"
#include "ralph/server/serve.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <list>
#include <memory>
#include <mutex>
#include <poll.h>
#include <string>
#include <thread>
#include <unistd.h>

namespace ralph::server {
namespace {

// Writes whole lines to the client; once a write fails the client is gone and nothing more is
// written. Thread-safe.
class LineWriter {
public:
  explicit LineWriter(int fd) : m_fd(fd) {}
  bool write(const std::string& message) {
    const std::lock_guard lock(m_mutex);
    if (m_broken) {
      return false;
    }
    const std::string line = message + "\n";
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(m_fd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        m_broken = true;
        return false;
      }
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

private:
  int m_fd;
  std::mutex m_mutex;
  bool m_broken = false;
};

// The requests being answered, each on a thread of its own so that a long `tools/call` does
// not hold up a `notifications/cancelled` for it.
class Workers {
public:
  ~Workers() { join(); }
  // The requests still being answered.
  std::size_t running() {
    reap();
    return m_workers.size();
  }
  void start(std::function<void()> work) {
    reap();
    auto done = std::make_shared<std::atomic<bool>>(false);
    m_workers.push_back({std::thread([work = std::move(work), done] {
                           work();
                           done->store(true);
                         }),
                         done});
  }
  void join() {
    for (Worker& worker : m_workers) {
      worker.thread.join();
    }
    m_workers.clear();
  }

private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void reap() {
    for (auto it = m_workers.begin(); it != m_workers.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = m_workers.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::list<Worker> m_workers;
};

// Requests answered at once, each on a thread; past it a request gets k_server_busy.
constexpr std::size_t k_max_requests_at_once = 64;
// JSON-RPC's range for a server's own errors.
constexpr int k_server_busy = -32000;

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// Answers the messages on `in` until it ends or `stop` is cancelled.
void serve_lines(mcp::Dispatcher& dispatcher, int in, int out, const CancelToken& stop) {
  LineWriter writer(out);
  Workers workers;
  const auto send = [&writer](const std::string& message) { writer.write(message); };
  std::string line;
  bool oversized = false; // the current line passed the limit: skipped to its end
  char buffer[65536];
  for (;;) {
    if (stop.cancelled()) {
      break;
    }
    pollfd fd{.fd = in, .events = POLLIN, .revents = 0};
    const int ready = ::poll(&fd, 1, 100);
    if (ready < 0 && errno != EINTR) {
      break;
    }
    if (ready <= 0) {
      continue;
    }
    const ssize_t n = ::read(in, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
      continue;
    }
    if (n <= 0) {
      break; // the client closed stdin
    }
    for (ssize_t i = 0; i < n; ++i) {
      const char c = buffer[i];
      if (c != '\n') {
        if (!oversized) {
          line.push_back(c);
          if (line.size() > mcp::k_max_message_bytes) {
            oversized = true;
            line.clear();
            line.shrink_to_fit();
          }
        }
        continue;
      }
      if (oversized) {
        oversized = false;
        writer.write(mcp::rpc_error_text(
            nullptr, mcp::k_invalid_request,
            fmt::format("message refused: longer than the limit of {} bytes (4 MiB)",
                        mcp::k_max_message_bytes)));
        continue;
      }
      if (is_blank(line)) {
        line.clear();
        continue;
      }
      // A thread per request, but not without end: past the cap a request is refused at once
      // (a notification, which has no answer and may be the cancel that frees a thread, is not).
      if (workers.running() >= k_max_requests_at_once) {
        const auto message = nlohmann::json::parse(line, nullptr, false);
        if (message.is_object() && message.contains("id")) {
          writer.write(mcp::rpc_error_text(
              message["id"], k_server_busy,
              fmt::format("busy: {} requests are being answered; send this one again when one "
                          "has finished",
                          k_max_requests_at_once)));
          line.clear();
          continue;
        }
      }
      workers.start([&dispatcher, &writer, send, text = std::move(line)] {
        const mcp::Reply reply = dispatcher.handle(text, send);
        if (!reply.body.empty()) {
          writer.write(reply.body);
        }
      });
      line.clear();
    }
  }
  // The client is gone (or we were stopped): what still runs is cancelled, not awaited in vain.
  dispatcher.cancel_all();
  workers.join();
}

} // namespace

Result<void> mcp_serve(session::Runtime& runtime, const McpServeRequest& request, int in, int out,
                       ServeObserver& observer, const CancelToken& stop) {
  ServeRequest serve{
      .workspace = request.workspace, .config = request.config, .flags = request.flags};
  std::unique_ptr<Hosting> hosting;
  if (request.config.store.enabled) {
    TRY_ASSIGN(hosting, Hosting::open(runtime, serve, random_token(), 0, observer, false));
  }
  mcp::Dispatcher dispatcher(
      {.name = "ralph", .version = RALPH_VERSION, .instructions = k_mcp_instructions},
      make_mcp_tools({.runtime = runtime,
                      .config = request.config,
                      .workspace = request.workspace,
                      .parts = hosting ? &hosting->parts() : nullptr}),
      false, &runtime.redactor());
  serve_lines(dispatcher, in, out, stop);
  // `hosting` goes now: the sessions it started end interrupted (resumable).
  return {};
}

} // namespace ralph::server
