#include "stdio_process.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ralph::mcp {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
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

Result<StdioProcess> spawn_stdio_process(const StdioLaunch& launch) {
  if (launch.argv.empty() || launch.argv[0].empty()) {
    return fail(ErrorKind::config, "cannot start an MCP server: its command is empty");
  }
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
  StdioProcess process;
  process.pid = pid;
  process.in = in[0];
  process.out = out[0];
  process.err = err[0];
  ::fcntl(process.err, F_SETFL, ::fcntl(process.err, F_GETFL) | O_NONBLOCK);
  return process;
}

void stop_stdio_process(int pid, std::chrono::milliseconds grace) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (!wait_exit(pidfd, grace)) {
    ::kill(-pid, SIGTERM);
    if (!wait_exit(pidfd, grace)) {
      ::kill(-pid, SIGKILL);
    }
  }
  // The leader is a zombie or soon one, so its group id is not reused yet: end what it left.
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (pidfd >= 0) {
    ::close(pidfd);
  }
}

} // namespace ralph::mcp
