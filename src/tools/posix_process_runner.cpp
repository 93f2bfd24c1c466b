#include "output_capture.h"
#include "process_spawn.h"
#include "unique_fd.h"

#include "ralph/core/try.h"
#include "ralph/tools/process_runner.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <span>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ralph::tools {
namespace {

using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The loop wakes at least this often to look at the CancelToken.
constexpr milliseconds k_tick{50};
// What one read() of a child's output may return.
constexpr std::size_t k_read_buffer = 64 * 1024;
// Between SIGTERM and SIGKILL of the group on timeout or cancel.
constexpr milliseconds k_term_grace{1000};
// After the child exits and its group is killed, how long to keep reading pipes that are still
// open: only a process that left the group (setsid) can hold them that long.
constexpr milliseconds k_drain_grace{1000};

// The child process and its group. The destructor kills and reaps whatever is still there, so
// no path out of `run` (exceptions included) leaves a zombie or a running group behind.
class Child {
public:
  explicit Child(pid_t pid)
      // pidfd_open has no glibc 2.36 wrapper usable from C++; the raw syscall is stable.
      : m_pid(pid), m_pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (!m_reaped) {
      kill_group(SIGKILL);
      reap();
    }
  }

  // -1 when the kernel has no pidfd; the loop then notices the exit on its next tick.
  int pidfd() const { return m_pidfd.get(); }

  // Whether the child has exited, without reaping it: an unreaped zombie keeps its pid, and so
  // the group id, from being reused, which makes signalling the group afterwards safe.
  bool has_exited() const {
    siginfo_t info{};
    const int rc = ::waitid(P_PID, static_cast<id_t>(m_pid), &info, WEXITED | WNOHANG | WNOWAIT);
    // ECHILD: someone else reaped it (SIGCHLD ignored); it is gone either way.
    return (rc == 0 && info.si_pid == m_pid) || (rc != 0 && errno == ECHILD);
  }

  void kill_group(int sig) const { ::kill(-m_pid, sig); }

  // Waits for the child; its wait status, or nothing if it had been reaped elsewhere.
  std::optional<int> reap() {
    int status = 0;
    pid_t rc = -1;
    do {
      rc = ::waitpid(m_pid, &status, 0);
    } while (rc < 0 && errno == EINTR);
    m_reaped = true;
    return rc == m_pid ? std::optional<int>(status) : std::nullopt;
  }

private:
  pid_t m_pid;
  UniqueFd m_pidfd;
  bool m_reaped = false;
};

// Writes to the child's stdin without letting a closed pipe raise SIGPIPE in this process: the
// signal is blocked for this thread during the write and a SIGPIPE it caused is consumed.
ssize_t write_without_sigpipe(int fd, std::string_view data) {
  sigset_t pipe_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  sigset_t old_mask;
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
  const ssize_t written = ::write(fd, data.data(), data.size());
  const int saved_errno = errno;
  if (written < 0 && saved_errno == EPIPE && !was_pending) {
    const timespec zero{};
    sigtimedwait(&pipe_set, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  errno = saved_errno;
  return written;
}

// Reads what is available, shows it to `observer` when there is one; closes `fd` at end of file
// or on a real error. True when bytes came.
bool read_into(UniqueFd& fd, OutputCapture& capture, std::span<char> buffer,
               const std::function<void(std::string_view)>* observer = nullptr) {
  const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
  if (n > 0) {
    const std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
    capture.append(chunk);
    if (observer != nullptr && *observer) {
      (*observer)(chunk);
    }
    return true;
  }
  if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    fd.reset();
  }
  return false;
}

int poll_timeout_ms(SteadyClock::time_point now, SteadyClock::time_point until) {
  if (until <= now) {
    return 0;
  }
  const auto left = std::chrono::ceil<milliseconds>(until - now);
  return static_cast<int>(std::min(left, k_tick).count());
}

enum class Phase { running, terminating, exited };

} // namespace

Result<ProcessResult> PosixProcessRunner::run(const ProcessSpec& spec, const CancelToken& cancel) {
  BlockingWaiter blocking;
  Waiter& waiter = m_waiter != nullptr ? *m_waiter : blocking;
  const auto start = SteadyClock::now();
  TRY_ASSIGN(SpawnedProcess spawned, spawn_process(spec));
  Child child(spawned.pid);
  UniqueFd out = std::move(spawned.out);
  UniqueFd err = std::move(spawned.err);
  UniqueFd in = std::move(spawned.in);
  std::string_view stdin_left = spec.stdin_data;

  const std::size_t limit = spec.output_limit == 0 ? k_default_output_limit : spec.output_limit;
  OutputCapture out_capture(limit);
  OutputCapture err_capture(limit);
  // Uninitialised: only what read() returns is ever looked at.
  const std::unique_ptr<char[]> buffer_memory(new char[k_read_buffer]);
  const std::span<char> buffer(buffer_memory.get(), k_read_buffer);
  ProcessResult result;

  const auto never = SteadyClock::time_point::max();
  // A timeout too large to add to `start` is as good as none.
  const bool has_deadline = spec.timeout.count() > 0 &&
                            spec.timeout < std::chrono::duration_cast<milliseconds>(never - start);
  const auto deadline = has_deadline ? start + spec.timeout : never;
  const bool has_idle_limit =
      spec.idle_timeout.count() > 0 &&
      spec.idle_timeout < std::chrono::duration_cast<milliseconds>(never - start);
  auto last_output = start;
  const auto idle_deadline = [&] {
    return has_idle_limit ? last_output + spec.idle_timeout : never;
  };
  auto kill_at = never;     // terminating: when SIGTERM turns into SIGKILL
  auto drain_until = never; // exited: when to stop waiting for pipes to close
  Phase phase = Phase::running;

  while (true) {
    const auto now = SteadyClock::now();
    if (phase != Phase::exited && child.has_exited()) {
      // Background grandchildren (`cmd &`) would hold the pipes open indefinitely.
      phase = Phase::exited;
      child.kill_group(SIGKILL);
      in.reset();
      drain_until = now + k_drain_grace;
    }
    if (phase == Phase::running &&
        (cancel.cancelled() || now >= deadline || now >= idle_deadline())) {
      result.cancelled = cancel.cancelled();
      result.timed_out = !result.cancelled && now >= deadline;
      result.idle_timed_out = !result.cancelled && !result.timed_out;
      phase = Phase::terminating;
      child.kill_group(SIGTERM);
      in.reset();
      kill_at = now + k_term_grace;
    }
    if (phase == Phase::terminating && now >= kill_at) {
      child.kill_group(SIGKILL);
      kill_at = never;
    }
    const bool pipes_open = out.valid() || err.valid();
    if (phase == Phase::exited && (!pipes_open || now >= drain_until || cancel.cancelled())) {
      break;
    }

    std::array<pollfd, 4> fds{};
    std::size_t count = 0;
    const auto watch = [&](const UniqueFd& fd, short events) {
      if (fd.valid()) {
        fds[count++] = pollfd{fd.get(), events, 0};
      }
    };
    watch(out, POLLIN);
    watch(err, POLLIN);
    watch(in, POLLOUT);
    if (phase != Phase::exited && child.pidfd() >= 0) {
      fds[count++] = pollfd{child.pidfd(), POLLIN, 0};
    }
    const auto until = phase == Phase::running       ? std::min(deadline, idle_deadline())
                       : phase == Phase::terminating ? kill_at
                                                     : drain_until;
    if (waiter.poll(fds.data(), count, milliseconds(poll_timeout_ms(now, until))) < 0 &&
        errno != EINTR) {
      // Only ENOMEM is possible with valid fds. Stop the child so the reap below cannot hang.
      child.kill_group(SIGKILL);
      break;
    }

    for (std::size_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) {
        continue;
      }
      if (fds[i].fd == out.get()) {
        if (read_into(out, out_capture, buffer, &spec.on_output)) {
          last_output = SteadyClock::now();
        }
      } else if (err.valid() && fds[i].fd == err.get()) {
        if (read_into(err, err_capture, buffer)) {
          last_output = SteadyClock::now();
        }
      } else if (in.valid() && fds[i].fd == in.get()) {
        const ssize_t n = write_without_sigpipe(in.get(), stdin_left.substr(0, 64 * 1024));
        if (n > 0) {
          stdin_left.remove_prefix(static_cast<std::size_t>(n));
        }
        // Done, or the child closed its stdin (EPIPE): it does not want the rest.
        if (stdin_left.empty() || (n < 0 && errno != EAGAIN && errno != EINTR)) {
          in.reset();
        }
      }
    }
  }

  if (const auto status = child.reap()) {
    if (WIFEXITED(*status)) {
      result.exit_code = WEXITSTATUS(*status);
    } else if (WIFSIGNALED(*status)) {
      result.term_signal = WTERMSIG(*status);
    }
  }
  result.output = out_capture.text();
  result.err_output = err_capture.text();
  result.output_truncated = out_capture.truncated();
  result.err_truncated = err_capture.truncated();
  result.output_bytes = out_capture.total();
  result.err_bytes = err_capture.total();
  result.duration = std::chrono::duration_cast<milliseconds>(SteadyClock::now() - start);
  return result;
}

} // namespace ralph::tools
