#include "ralph_process.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
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

} // namespace

RalphProcess::RalphProcess(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                           const std::map<std::string, std::string>& env) {
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
  for (const auto& [key, value] : env) {
    env_entries.push_back(key + "=" + value);
  }

  std::vector<std::string> argv_strings{RALPH_BINARY};
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
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  const int rc = posix_spawn(&m_pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
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
  std::error_code ec;
  std::filesystem::remove_all(m_dir, ec);
}

void RalphProcess::signal(int sig) const {
  ::kill(m_pid, sig);
}

RalphOutput RalphProcess::wait() {
  int status = 0;
  while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  m_waited = true;
  RalphOutput result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(m_dir / "stdout");
  result.err = slurp(m_dir / "stderr");
  return result;
}

RalphOutput run_ralph(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                      const std::map<std::string, std::string>& env) {
  RalphProcess process(args, cwd, env);
  return process.wait();
}

} // namespace ralph::testing
