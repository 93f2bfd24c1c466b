#include "mcp_process.h"

#include "support/temp_dir.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ralph::testing {

namespace {

// Provider keys and ralph's own variables never reach a test's child (as RalphProcess does).
bool is_credential(const std::string& entry) {
  for (const char* prefix :
       {"OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "OPENAI_BASE_URL=", "RALPH_"}) {
    if (entry.rfind(prefix, 0) == 0) {
      return true;
    }
  }
  return false;
}

} // namespace

McpStdioProcess::McpStdioProcess(const std::filesystem::path& workspace,
                                 const std::vector<std::string>& args,
                                 const std::map<std::string, std::string>& env) {
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return;
  }
  m_err = std::filesystem::temp_directory_path() /
          ("ralph-mcp-stderr-" + std::to_string(::getpid()) + "-" + std::to_string(in[0]));
  std::vector<std::string> argv = {RALPH_BINARY, "mcp", "serve"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    if (!is_credential(entry) && env.find(name) == env.end()) {
      entries.push_back(std::move(entry));
    }
  }
  for (const auto& [name, value] : env) {
    entries.push_back(name + "=" + value);
  }
  if (env.find("HOME") == env.end()) {
    // No developer's own settings in the way: a home of its own beside the workspace's files.
    std::filesystem::create_directories(workspace / ".home");
    entries.push_back("HOME=" + (workspace / ".home").string());
  }
  std::vector<char*> c_argv;
  for (std::string& arg : argv) {
    c_argv.push_back(arg.data());
  }
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  for (std::string& entry : entries) {
    c_env.push_back(entry.data());
  }
  c_env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, m_err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addchdir_np(&actions, workspace.c_str());
  const int spawned =
      ::posix_spawn(&m_pid, RALPH_BINARY, &actions, nullptr, c_argv.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  m_in = in[1];
  m_out = out[0];
  if (spawned != 0) {
    ADD_FAILURE() << "posix_spawn: " << std::strerror(spawned);
    m_pid = -1;
  }
}

McpStdioProcess::~McpStdioProcess() {
  close_stdin();
  if (m_pid > 0 && !m_exit) {
    ::kill(m_pid, SIGKILL);
    wait();
  }
  if (m_out >= 0) {
    ::close(m_out);
  }
  std::error_code ignored;
  std::filesystem::remove(m_err, ignored);
}

void McpStdioProcess::send_line(const std::string& line) {
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(m_in, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      ADD_FAILURE() << "writing to ralph mcp serve: " << std::strerror(errno);
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

std::optional<std::string> McpStdioProcess::read_line(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (const auto end = m_buffer.find('\n'); end != std::string::npos) {
      std::string line = m_buffer.substr(0, end);
      m_buffer.erase(0, end + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return std::nullopt;
    }
    pollfd fd{.fd = m_out, .events = POLLIN, .revents = 0};
    if (::poll(&fd, 1, static_cast<int>(left.count())) <= 0) {
      continue;
    }
    char buffer[65536];
    const ssize_t n = ::read(m_out, buffer, sizeof buffer);
    if (n <= 0) {
      return std::nullopt;
    }
    m_buffer.append(buffer, static_cast<std::size_t>(n));
  }
}

std::optional<nlohmann::json> McpStdioProcess::read_response(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const std::optional<std::string> line = read_line(std::max(left, std::chrono::milliseconds(0)));
    if (!line) {
      return std::nullopt;
    }
    nlohmann::json message = nlohmann::json::parse(*line, nullptr, false);
    if (message.is_discarded()) {
      ADD_FAILURE() << "not JSON on stdout: " << *line;
      return std::nullopt;
    }
    if (message.contains("method")) {
      notifications.push_back(std::move(message));
      continue;
    }
    return message;
  }
}

void McpStdioProcess::close_stdin() {
  if (m_in >= 0) {
    ::close(m_in);
    m_in = -1;
  }
}

int McpStdioProcess::wait() {
  if (m_exit) {
    return *m_exit;
  }
  int status = 0;
  while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  m_exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return *m_exit;
}

std::string McpStdioProcess::err() const {
  std::ifstream in(m_err);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::filesystem::path mcp_tests_dir() {
  const char* dir = std::getenv("RALPH_MCP_TESTS_DIR");
  return dir != nullptr && *dir != '\0'
             ? std::filesystem::path(dir)
             : std::filesystem::path(RALPH_SOURCE_DIR) / "tests" / "mcp_packages" / "node_modules";
}

std::optional<std::filesystem::path> find_inspector() {
  const std::filesystem::path inspector = mcp_tests_dir() / ".bin" / "mcp-inspector";
  if (::access(inspector.c_str(), X_OK) != 0) {
    return std::nullopt;
  }
  return inspector;
}

nlohmann::json run_inspector(const std::filesystem::path& inspector,
                             const std::vector<std::string>& args,
                             const std::filesystem::path& cwd) {
  std::vector<std::string> argv = {"--cli"};
  argv.insert(argv.end(), args.begin(), args.end());
  RalphProcess process(argv, cwd, {}, Streams::files, nullptr, inspector.string());
  const RalphOutput out = process.wait();
  nlohmann::json parsed = nlohmann::json::parse(out.out, nullptr, false);
  if (out.exit_code != 0 || parsed.is_discarded()) {
    ADD_FAILURE() << "mcp-inspector exited " << out.exit_code << "\nstdout: " << out.out
                  << "\nstderr: " << out.err;
    return nullptr;
  }
  return parsed;
}

} // namespace ralph::testing
