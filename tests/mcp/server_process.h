#pragma once

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace ralph::testing {

// A loopback port nobody listens on right now.
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t size = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

// A server started in its own process group with extra variables, its stdout and stderr read
// until a line says it is ready. Killed (the whole group) and reaped on destruction.
class ServerProcess {
public:
  ServerProcess(std::vector<std::string> argv, std::vector<std::string> extra_env) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    std::vector<std::string> env = std::move(extra_env);
    for (char** entry = environ; *entry != nullptr; ++entry) {
      env.emplace_back(*entry); // the first of a name wins in getenv
    }
    std::vector<char*> argv_ptrs;
    for (auto& s : argv) {
      argv_ptrs.push_back(s.data());
    }
    argv_ptrs.push_back(nullptr);
    std::vector<char*> env_ptrs;
    for (auto& s : env) {
      env_ptrs.push_back(s.data());
    }
    env_ptrs.push_back(nullptr);
    if (::posix_spawnp(&m_pid, argv_ptrs[0], &actions, &attr, argv_ptrs.data(), env_ptrs.data()) !=
        0) {
      m_pid = -1;
    }
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    m_out = fds[0];
  }
  ~ServerProcess() {
    if (m_pid > 0) {
      ::kill(-m_pid, SIGKILL);
      int status = 0;
      ::waitpid(m_pid, &status, 0);
    }
    if (m_out >= 0) {
      ::close(m_out);
    }
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Reads its output until `marker` shows up; false when it ended or `timeout` passed first.
  bool wait_for(const std::string& marker, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buffer[4096];
    while (m_output.find(marker) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        return false;
      }
      pollfd p{m_out, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
        continue;
      }
      const ssize_t n = ::read(m_out, buffer, sizeof buffer);
      if (n <= 0) {
        return false;
      }
      m_output.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
  }
  const std::string& output() const { return m_output; }

private:
  pid_t m_pid = -1;
  int m_out = -1;
  std::string m_output;
};

} // namespace ralph::testing
