#include "stdio_channel.h"

#include "line_splitter.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <deque>
#include <optional>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ralph::mcp {
namespace {

constexpr std::size_t max_message_bytes = std::size_t{64} << 20;
constexpr std::size_t max_stderr_line = 64 * 1024;
// How often a waiting request looks at its cancel token, which has no descriptor to wait on.
constexpr std::chrono::milliseconds cancel_check{50};
constexpr std::chrono::milliseconds exit_grace{2000};

void close_fd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

void signal_event(int fd) {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(fd, &one, sizeof one);
}

void drain_event(int fd) {
  std::uint64_t value = 0;
  [[maybe_unused]] const auto got = ::read(fd, &value, sizeof value);
}

} // namespace

struct StdioChannel::Pending {
  std::mutex mutex;
  std::optional<RpcReply> reply;
  std::deque<Json> progress;
  bool wants_progress = false;
  int event = -1;
  Pending() : event(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~Pending() { close_fd(event); }
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
};

StdioChannel::StdioChannel(Waiter& waiter, LineHandler on_stderr,
                           NotificationHandler on_notification)
    : m_waiter(waiter), m_on_stderr(std::move(on_stderr)),
      m_on_notification(std::move(on_notification)) {}

Result<std::unique_ptr<StdioChannel>> StdioChannel::start(const StdioLaunch& launch, Waiter& waiter,
                                                          LineHandler on_stderr,
                                                          NotificationHandler on_notification) {
  std::unique_ptr<StdioChannel> channel(
      new StdioChannel(waiter, std::move(on_stderr), std::move(on_notification)));
  TRY_ASSIGN(const StdioProcess process, spawn_stdio_process(launch));
  channel->m_pid = process.pid;
  channel->m_in = process.in;
  channel->m_out = process.out;
  channel->m_err = process.err;
  channel->m_stop = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  channel->m_reader = std::thread([raw = channel.get()] { raw->read_loop(); });
  return channel;
}

StdioChannel::~StdioChannel() {
  shutdown_child();
  if (m_reader.joinable()) {
    signal_event(m_stop);
    m_reader.join();
  }
  close_fd(m_out);
  close_fd(m_err);
  close_fd(m_stop);
}

void StdioChannel::shutdown_child() {
  if (m_pid <= 0) {
    return;
  }
  // Closing stdin asks a stdio server to exit (the spec's way); then SIGTERM, then SIGKILL.
  {
    const std::lock_guard lock(m_write_mutex);
    close_fd(m_in);
  }
  stop_stdio_process(m_pid, exit_grace);
  m_pid = -1;
}

std::string StdioChannel::last_stderr() const {
  const std::lock_guard lock(m_mutex);
  return m_last_stderr;
}

bool StdioChannel::send_line(const std::string& text) {
  if (m_in < 0) {
    return false;
  }
  std::string line = text + "\n";
  std::string_view rest = line;
  while (!rest.empty()) {
    const ssize_t n = ::send(m_in, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void StdioChannel::flush_outbox() {
  while (true) {
    std::vector<std::string> batch;
    {
      const std::lock_guard lock(m_mutex);
      batch.swap(m_outbox);
    }
    if (batch.empty()) {
      return;
    }
    for (const std::string& text : batch) {
      send_line(text);
    }
  }
}

bool StdioChannel::outbox_empty() const {
  const std::lock_guard lock(m_mutex);
  return m_outbox.empty();
}

void StdioChannel::flush_outbox_if_free() {
  // Whoever holds the write lock flushes before letting go; this covers an answer queued just
  // after that.
  while (!outbox_empty()) {
    const std::unique_lock lock(m_write_mutex, std::try_to_lock);
    if (!lock.owns_lock()) {
      return;
    }
    flush_outbox();
  }
}

bool StdioChannel::write_line(const std::string& text) {
  bool sent = false;
  {
    const std::lock_guard lock(m_write_mutex);
    sent = send_line(text);
    flush_outbox();
  }
  flush_outbox_if_free();
  return sent;
}

void StdioChannel::answer(const std::string& text) {
  // The reader never waits for the write lock: its holder may be stuck sending to a server that
  // is itself stuck writing to us until the reader reads again.
  {
    const std::lock_guard lock(m_mutex);
    m_outbox.push_back(text);
  }
  flush_outbox_if_free();
}

std::shared_ptr<StdioChannel::Pending> StdioChannel::take_pending(std::int64_t id) {
  const std::lock_guard lock(m_mutex);
  const auto it = m_pending.find(id);
  if (it == m_pending.end()) {
    return nullptr;
  }
  auto pending = it->second;
  m_pending.erase(it);
  return pending;
}

RpcReply StdioChannel::request(const RpcRequest& request) {
  const std::int64_t id = m_next_id.fetch_add(1);
  auto pending = std::make_shared<Pending>();
  Json params = request.params.is_null() ? Json::object() : request.params;
  if (request.on_progress) {
    pending->wants_progress = true;
    params["_meta"]["progressToken"] = id;
  }
  RpcReply reply;
  {
    const std::lock_guard lock(m_mutex);
    if (m_closed) {
      reply.failure = RpcFailure::closed;
      reply.failure_message = "the server has exited";
      return reply;
    }
    m_pending.emplace(id, pending);
  }
  if (!write_line(rpc_request_text(id, request.method, params))) {
    take_pending(id);
    reply.failure = RpcFailure::closed;
    reply.failure_message = "the server's stdin is closed";
    return reply;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = request.timeout.count() > 0 ? start + request.timeout
                                                    : std::chrono::steady_clock::time_point::max();
  while (true) {
    std::deque<Json> progress;
    std::optional<RpcReply> answer;
    {
      const std::lock_guard lock(pending->mutex);
      progress.swap(pending->progress);
      answer = std::move(pending->reply);
      pending->reply.reset();
    }
    for (const Json& update : progress) {
      request.on_progress(update);
    }
    if (answer) {
      return *std::move(answer);
    }
    const auto now = std::chrono::steady_clock::now();
    const bool cancelled = request.cancel.cancelled();
    if (cancelled || now >= deadline) {
      take_pending(id);
      const char* reason = cancelled ? "cancelled by the client" : "timed out";
      if (!m_closed) {
        write_line(rpc_notification_text("notifications/cancelled",
                                         {{"requestId", id}, {"reason", reason}}));
      }
      reply.failure = cancelled ? RpcFailure::cancelled : RpcFailure::timeout;
      return reply;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    pollfd p{pending->event, POLLIN, 0};
    Waiter& waiter = request.waiter != nullptr ? *request.waiter : m_waiter;
    if (waiter.poll(&p, 1, std::clamp(left, std::chrono::milliseconds(1), cancel_check)) > 0) {
      drain_event(pending->event);
    }
  }
}

void StdioChannel::notify(const std::string& method, const Json& params) {
  write_line(rpc_notification_text(method, params));
}

void StdioChannel::close_all(const std::string& why) {
  std::map<std::int64_t, std::shared_ptr<Pending>> pending;
  {
    const std::lock_guard lock(m_mutex);
    m_closed = true;
    pending.swap(m_pending);
  }
  for (auto& [id, waiting] : pending) {
    {
      const std::lock_guard lock(waiting->mutex);
      RpcReply reply;
      reply.failure = RpcFailure::closed;
      reply.failure_message = why;
      waiting->reply = std::move(reply);
    }
    signal_event(waiting->event);
  }
}

void StdioChannel::on_stderr_line(std::string_view line) {
  if (line.empty()) {
    return;
  }
  {
    const std::lock_guard lock(m_mutex);
    m_last_stderr = std::string(line);
  }
  if (m_on_stderr) {
    m_on_stderr(line);
  }
}

void StdioChannel::on_line(std::string_view line) {
  if (line.find_first_not_of(" \t") == std::string_view::npos) {
    return;
  }
  auto parsed = parse_rpc_message(line);
  if (!parsed) {
    if (m_on_stderr) {
      m_on_stderr(
          fmt::format("(stdout, ignored: {}) {}", parsed.error().message, line.substr(0, 200)));
    }
    return;
  }
  RpcMessage& message = *parsed;
  switch (message.kind) {
  case RpcKind::response: {
    // A late answer for a request given up on has no taker and is dropped.
    if (!message.id.is_number_integer()) {
      return;
    }
    const auto pending = take_pending(message.id.get<std::int64_t>());
    if (!pending) {
      return;
    }
    {
      const std::lock_guard lock(pending->mutex);
      RpcReply reply;
      reply.result = std::move(message.result);
      reply.error = std::move(message.error);
      pending->reply = std::move(reply);
    }
    signal_event(pending->event);
    return;
  }
  case RpcKind::request:
    // ralph offers no roots, sampling or elicitation; a ping is answered.
    if (message.method == "ping") {
      answer(rpc_result_text(message.id, Json::object()));
    } else {
      answer(rpc_error_text(message.id, k_method_not_found,
                            fmt::format("method not found: {}", message.method)));
    }
    return;
  case RpcKind::notification:
    if (message.method == "notifications/progress") {
      const Json token =
          message.params.is_object() ? message.params.value("progressToken", Json()) : Json();
      if (!token.is_number_integer()) {
        return;
      }
      std::shared_ptr<Pending> pending;
      {
        const std::lock_guard lock(m_mutex);
        const auto it = m_pending.find(token.get<std::int64_t>());
        if (it != m_pending.end()) {
          pending = it->second;
        }
      }
      if (pending && pending->wants_progress) {
        {
          const std::lock_guard lock(pending->mutex);
          pending->progress.push_back(message.params);
        }
        signal_event(pending->event);
      }
      return;
    }
    if (m_on_notification) {
      m_on_notification(message);
    }
    return;
  }
}

void StdioChannel::read_loop() {
  LineSplitter out_lines(
      max_message_bytes, [this](std::string_view line) { on_line(line); },
      [this](std::size_t bytes) {
        if (m_on_stderr) {
          m_on_stderr(
              fmt::format("(stdout, ignored: a message of {} bytes, over the limit)", bytes));
        }
      });
  LineSplitter err_lines(
      max_stderr_line, [this](std::string_view line) { on_stderr_line(line); },
      [this](std::size_t bytes) {
        on_stderr_line(fmt::format("[a stderr line of {} bytes omitted]", bytes));
      });
  std::string buffer(64 * 1024, '\0');
  bool out_open = true;
  bool err_open = true;
  const auto drain_err = [&] {
    while (err_open) {
      const ssize_t n = ::read(m_err, buffer.data(), buffer.size());
      if (n > 0) {
        err_lines.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
        continue;
      }
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n == 0) {
        err_lines.feed("\n");
        err_open = false;
      }
      return;
    }
  };
  while (out_open || err_open) {
    std::array<pollfd, 3> fds{pollfd{out_open ? m_out : -1, POLLIN, 0},
                              pollfd{err_open ? m_err : -1, POLLIN, 0}, pollfd{m_stop, POLLIN, 0}};
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      break;
    }
    if (fds[2].revents != 0) {
      break;
    }
    if (fds[1].revents != 0) {
      drain_err();
    }
    if (fds[0].revents != 0) {
      const ssize_t n = ::read(m_out, buffer.data(), buffer.size());
      if (n > 0) {
        out_lines.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
      } else if (n == 0 || errno != EINTR) {
        out_open = false;
        // Its last words on stderr first, so the failure can quote them.
        drain_err();
        close_all("the server exited");
      }
    }
  }
  if (out_open) {
    close_all("the connection was closed");
  }
}

} // namespace ralph::mcp
