#include "stdio_channel.h"

#include "line_splitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

// Waits for the child to exit (its pidfd readable) for at most `timeout`.
bool wait_exit(int pidfd, std::chrono::milliseconds timeout) {
  if (pidfd < 0) {
    return false;
  }
  pollfd p{pidfd, POLLIN, 0};
  int rc = 0;
  do {
    rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
  } while (rc < 0 && errno == EINTR);
  return rc > 0;
}

struct SpawnAttributes {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnAttributes() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnAttributes() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
};

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (auto& s : strings) {
    result.push_back(s.data());
  }
  result.push_back(nullptr);
  return result;
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
  if (launch.argv.empty() || launch.argv[0].empty()) {
    return fail(ErrorKind::config, "cannot start an MCP server: its command is empty");
  }
  std::unique_ptr<StdioChannel> channel(
      new StdioChannel(waiter, std::move(on_stderr), std::move(on_notification)));
  // stdin is a socket, not a pipe: send(MSG_NOSIGNAL) to a child that died is an error, not
  // a SIGPIPE that would end ralph.
  std::array<int, 2> in{-1, -1};
  std::array<int, 2> out{-1, -1};
  std::array<int, 2> err{-1, -1};
  const auto cleanup = [&] {
    for (int* fd : {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1]}) {
      close_fd(*fd);
    }
  };
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in.data()) != 0 ||
      ::pipe2(out.data(), O_CLOEXEC) != 0 || ::pipe2(err.data(), O_CLOEXEC) != 0) {
    const int saved = errno;
    cleanup();
    return fail(ErrorKind::subprocess, fmt::format("cannot start `{}`: no pipes: {}",
                                                   launch.argv[0], std::strerror(saved)));
  }
  SpawnAttributes setup;
  posix_spawn_file_actions_adddup2(&setup.actions, in[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, err[1], STDERR_FILENO);
  if (!launch.cwd.empty()) {
    posix_spawn_file_actions_addchdir_np(&setup.actions, launch.cwd.c_str());
  }
  // Its own session: the whole group can be stopped, and our terminal's Ctrl-C is not its.
  sigset_t defaults;
  sigemptyset(&defaults);
  for (const int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2}) {
    sigaddset(&defaults, sig);
  }
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  posix_spawnattr_setsigdefault(&setup.attr, &defaults);
  posix_spawnattr_setsigmask(&setup.attr, &empty_mask);
  posix_spawnattr_setflags(
      &setup.attr,
      static_cast<short>(POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK));
  std::vector<std::string> argv_strings = launch.argv;
  std::vector<std::string> env_strings = launch.environment;
  std::vector<char*> argv = pointers_to(argv_strings);
  std::vector<char*> envp = pointers_to(env_strings);
  pid_t pid = -1;
  const bool search_path = launch.argv[0].find('/') == std::string::npos;
  const int rc =
      search_path
          ? ::posix_spawnp(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), envp.data())
          : ::posix_spawn(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), envp.data());
  close_fd(in[1]);
  close_fd(out[1]);
  close_fd(err[1]);
  if (rc != 0) {
    cleanup();
    std::error_code ec;
    if (!launch.cwd.empty() && !std::filesystem::is_directory(launch.cwd, ec)) {
      return fail(ErrorKind::subprocess,
                  fmt::format("cannot start `{}`: working directory {} does not exist",
                              launch.argv[0], launch.cwd.string()));
    }
    return fail(ErrorKind::subprocess,
                fmt::format("cannot start `{}`: {}", launch.argv[0], std::strerror(rc)));
  }
  channel->m_pid = pid;
  channel->m_in = in[0];
  channel->m_out = out[0];
  channel->m_err = err[0];
  ::fcntl(channel->m_err, F_SETFL, ::fcntl(channel->m_err, F_GETFL) | O_NONBLOCK);
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
  close_fd(m_in);
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, m_pid, 0));
  if (!wait_exit(pidfd, exit_grace)) {
    ::kill(-m_pid, SIGTERM);
    if (!wait_exit(pidfd, exit_grace)) {
      ::kill(-m_pid, SIGKILL);
    }
  }
  // The leader is a zombie or soon one, so its group id is not reused yet: end what it left.
  ::kill(-m_pid, SIGKILL);
  int status = 0;
  while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (pidfd >= 0) {
    ::close(pidfd);
  }
  m_pid = -1;
}

std::string StdioChannel::last_stderr() const {
  const std::lock_guard lock(m_mutex);
  return m_last_stderr;
}

bool StdioChannel::write_line(const std::string& text) {
  const std::lock_guard lock(m_write_mutex);
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
      write_line(rpc_result_text(message.id, Json::object()));
    } else {
      write_line(rpc_error_text(message.id, rpc_code::method_not_found,
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
