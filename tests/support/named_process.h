#pragma once

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>

namespace ralph::testing {

// A child process that sleeps until destroyed, shown as `name` in its command line (its argv[0]):
// a live process that is, or is not, a ralph.
class NamedProcess {
public:
  // Returns once the child runs as `name`: the close-on-exec pipe reads end-of-file at its exec.
  explicit NamedProcess(const char* name) {
    int exec_done[2];
    if (pipe2(exec_done, O_CLOEXEC) != 0) {
      throw std::system_error(errno, std::generic_category(), "pipe2");
    }
    m_pid = fork();
    if (m_pid == 0) {
      char* const argv[] = {const_cast<char*>(name), const_cast<char*>("600"), nullptr};
      execv("/bin/sleep", argv);
      _exit(127);
    }
    ::close(exec_done[1]);
    char byte = 0;
    while (::read(exec_done[0], &byte, 1) < 0 && errno == EINTR) {
    }
    ::close(exec_done[0]);
  }
  ~NamedProcess() {
    ::kill(m_pid, SIGKILL);
    int status = 0;
    waitpid(m_pid, &status, 0);
  }
  NamedProcess(const NamedProcess&) = delete;
  NamedProcess& operator=(const NamedProcess&) = delete;

  pid_t pid() const { return m_pid; }

private:
  pid_t m_pid = -1;
};

// A pid that was a process and is not any more (reaped).
inline pid_t dead_pid() {
  const pid_t child = fork();
  if (child == 0) {
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

} // namespace ralph::testing
