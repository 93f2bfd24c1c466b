#include "ralph_process.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ralph::testing {
namespace {

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_credential(const std::string& entry) {
  for (const char* name : {"OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "OPENAI_BASE_URL=", "RALPH_"}) {
    if (entry.rfind(name, 0) == 0) {
      return true;
    }
  }
  return false;
}

// The master of a new pseudo-terminal.
int open_terminal() {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || fcntl(master, F_SETFD, FD_CLOEXEC) != 0 || grantpt(master) != 0 ||
      unlockpt(master) != 0) {
    throw std::runtime_error("cannot open a pseudo-terminal");
  }
  return master;
}

} // namespace

RalphProcess::RalphProcess(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                           const std::map<std::string, std::string>& env, Streams streams,
                           const std::string* input, const std::string& program)
    : m_streams(streams) {
  if (streams == Streams::interactive && input != nullptr) {
    throw std::logic_error("an interactive process reads what the test types, not a file");
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "ralph-e2e-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  m_dir = pattern;

  std::vector<std::string> env_entries;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    const auto name = entry.substr(0, entry.find('='));
    if (!is_credential(entry) && env.find(name) == env.end()) {
      env_entries.push_back(std::move(entry));
    }
  }
  // An isolated HOME keeps a developer's ~/.config/ralph out of the tests.
  if (env.find("HOME") == env.end()) {
    env_entries.push_back("HOME=" + m_dir.string());
  }
  env_entries.push_back("XDG_CONFIG_HOME=" + (m_dir / "xdg").string());
  // libedit reads the terminal's keys and capabilities from terminfo: xterm is what a person has.
  if (streams == Streams::interactive && env.find("TERM") == env.end()) {
    env_entries.push_back("TERM=xterm");
  }
  for (const auto& [key, value] : env) {
    env_entries.push_back(key + "=" + value);
  }

  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_strings) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : env_entries) {
    envp.push_back(e.data());
  }
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const auto out_path = (m_dir / "stdout").string();
  const auto err_path = (m_dir / "stderr").string();
  const auto in_path = (m_dir / "stdin").string();
  if (input != nullptr) {
    std::ofstream(in_path, std::ios::binary) << *input;
  }
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  int child_end = -1; // our copy of the child's writing end, closed once it started
  if (streams == Streams::interactive) {
    m_live_fd = open_terminal();
    const winsize size{.ws_row = 30, .ws_col = 100, .ws_xpixel = 0, .ws_ypixel = 0};
    if (ioctl(m_live_fd, TIOCSWINSZ, &size) != 0) {
      throw std::runtime_error("cannot size the pseudo-terminal");
    }
    // A session of its own, then the slave opened without O_NOCTTY: the session leader's first
    // terminal becomes its controlling terminal, with its process group in the foreground.
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
    posix_spawn_file_actions_addopen(&actions, 0, ptsname(m_live_fd), O_RDWR, 0);
    posix_spawn_file_actions_adddup2(&actions, 0, 1);
    posix_spawn_file_actions_adddup2(&actions, 0, 2);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, input != nullptr ? in_path.c_str() : "/dev/null",
                                     O_RDONLY, 0);
    if (streams == Streams::terminal) {
      m_live_fd = open_terminal();
      const std::string terminal = ptsname(m_live_fd);
      posix_spawn_file_actions_addopen(&actions, 1, terminal.c_str(), O_RDWR | O_NOCTTY, 0);
      posix_spawn_file_actions_adddup2(&actions, 1, 2);
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0644);
      if (streams == Streams::stderr_pipe) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) {
          throw std::runtime_error("cannot make a pipe");
        }
        m_live_fd = fds[0];
        child_end = fds[1];
        posix_spawn_file_actions_adddup2(&actions, child_end, 2);
      } else {
        posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
      }
    }
  }
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  const int rc = posix_spawn(&m_pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (child_end >= 0) {
    ::close(child_end);
  }
  if (rc != 0) {
    throw std::runtime_error("cannot start " + argv_strings[0]);
  }
}

RalphProcess::~RalphProcess() {
  if (!m_waited && m_pid > 0) {
    ::kill(m_pid, SIGKILL);
    int status = 0;
    waitpid(m_pid, &status, 0);
  }
  if (m_live_fd >= 0) {
    ::close(m_live_fd);
  }
  std::error_code ec;
  std::filesystem::remove_all(m_dir, ec);
}

bool RalphProcess::read_until(const std::string& needle, std::chrono::milliseconds timeout,
                              std::size_t from) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (m_live.find(needle, from) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (m_live_fd < 0 || left.count() <= 0) {
      return false;
    }
    pollfd ready{.fd = m_live_fd, .events = POLLIN, .revents = 0};
    if (::poll(&ready, 1, static_cast<int>(left.count())) <= 0) {
      continue;
    }
    char buffer[4096];
    const ssize_t got = ::read(m_live_fd, buffer, sizeof buffer);
    if (got <= 0) {
      return false; // the end (EIO on a terminal whose last writer closed it)
    }
    m_live.append(buffer, static_cast<std::size_t>(got));
  }
  return true;
}

void RalphProcess::signal(int sig) const {
  ::kill(m_pid, sig);
}

void RalphProcess::write(std::string_view text) const {
  if (m_streams != Streams::interactive) {
    throw std::logic_error("only an interactive process can be typed into");
  }
  while (!text.empty()) {
    const ssize_t wrote = ::write(m_live_fd, text.data(), text.size());
    if (wrote < 0 && errno == EINTR) {
      continue;
    }
    if (wrote <= 0) {
      throw std::runtime_error("cannot type into the terminal");
    }
    text.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

RalphOutput RalphProcess::wait() {
  // A live stream is read to its end first (EOF on a pipe, EIO on a terminal once the child is
  // gone): a child blocked on a full pipe would never exit.
  if (m_streams != Streams::files) {
    char buffer[4096];
    for (;;) {
      const ssize_t got = ::read(m_live_fd, buffer, sizeof buffer);
      if (got > 0) {
        m_live.append(buffer, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        break;
      }
    }
  }
  int status = 0;
  while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  m_waited = true;
  RalphOutput result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (m_streams == Streams::files) {
    result.out = slurp(m_dir / "stdout");
    result.err = slurp(m_dir / "stderr");
    return result;
  }
  result.out = m_streams == Streams::terminal || m_streams == Streams::interactive
                   ? m_live
                   : slurp(m_dir / "stdout");
  result.err = m_live;
  return result;
}

RalphOutput run_ralph(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                      const std::map<std::string, std::string>& env) {
  RalphProcess process(args, cwd, env);
  return process.wait();
}

RalphOutput run_ralph_with_input(const std::vector<std::string>& args,
                                 const std::filesystem::path& cwd, const std::string& input,
                                 const std::map<std::string, std::string>& env) {
  RalphProcess process(args, cwd, env, Streams::files, &input);
  return process.wait();
}

} // namespace ralph::testing
