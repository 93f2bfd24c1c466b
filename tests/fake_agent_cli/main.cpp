// fake_agent_cli: stands in for the agent CLIs ralph drives (claude, codex, gemini, goose,
// opencode, aider), speaking each one's stdout format, driven by a JSON script. The README beside
// this file describes the script.

#include "dialect.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace fake_agent_cli {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// Exit code for a bad invocation or script: not a code any real CLI's run would end with here.
constexpr int k_usage_exit = 2;

// Thrown for what the script or the invocation got wrong; main prints it and exits 2.
struct ScriptError {
  std::string message;
};

std::string format_of(const std::string& argv0) {
  if (const char* forced = std::getenv("FAKE_AGENT_FORMAT"); forced != nullptr && *forced != 0) {
    return forced;
  }
  return fs::path(argv0).filename().string();
}

std::string read_fd(int fd) {
  std::string data;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      data.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return data;
    }
  }
}

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Takes the next run's index from "<script>.state" under an exclusive lock, so invocations in a
// row (or even at once) each get their own run.
std::size_t take_run_index(const std::string& script_path, std::size_t runs) {
  const std::string state_path = script_path + ".state";
  const int fd = open(state_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || flock(fd, LOCK_EX) != 0) {
    throw ScriptError{state_path + ": " + std::strerror(errno)};
  }
  const std::string text = read_fd(fd);
  const std::size_t index = text.empty() ? 0 : std::stoul(text);
  if (index >= runs) {
    close(fd);
    throw ScriptError{script_path + ": no run left (" + std::to_string(runs) +
                      " in the script, all taken; remove " + state_path + " to start over)"};
  }
  const std::string next = std::to_string(index + 1) + "\n";
  if (ftruncate(fd, 0) != 0 || pwrite(fd, next.data(), next.size(), 0) < 0) {
    throw ScriptError{state_path + ": " + std::strerror(errno)};
  }
  close(fd); // releases the lock
  return index;
}

// Appends one JSON line to "<script>.log" describing this invocation.
void log_invocation(const std::string& script_path, const std::vector<std::string>& args,
                    const std::string& stdin_text, const json& run, std::size_t index,
                    const std::string& format) {
  json env = json::object();
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view item(*entry);
    const auto eq = item.find('=');
    if (item.starts_with("FAKE_AGENT_") && eq != std::string_view::npos) {
      env[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    }
  }
  for (const auto& name : run.value("log_env", json::array())) {
    const char* value = std::getenv(name.get<std::string>().c_str());
    env[name.get<std::string>()] = value != nullptr ? json(value) : json(nullptr);
  }
  const json line = {{"argv", args},        {"cwd", fs::current_path().string()},
                     {"stdin", stdin_text}, {"env", env},
                     {"run", index},        {"format", format},
                     {"pid", getpid()}};
  const std::string text = line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  const std::string log_path = script_path + ".log";
  const int fd = open(log_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw ScriptError{log_path + ": " + std::strerror(errno)};
  }
  write_all(fd, text); // one write with O_APPEND: lines of concurrent runs do not interleave
  close(fd);
}

// Runs `command` with /bin/sh -c in the current directory, stdin from /dev/null.
ShellRun run_shell(const std::string& command) {
  ShellRun run{.command = command};
  int out_pipe[2];
  FILE* err_file = std::tmpfile();
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || err_file == nullptr) {
    throw ScriptError{std::string("shell step: ") + std::strerror(errno)};
  }
  const pid_t pid = fork();
  if (pid == 0) {
    const int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(fileno(err_file), 2);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out_pipe[1]);
  run.out = read_fd(out_pipe[0]);
  close(out_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  lseek(fileno(err_file), 0, SEEK_SET);
  run.err = read_fd(fileno(err_file));
  std::fclose(err_file);
  return run;
}

FileWrite write_file(const json& spec) {
  FileWrite write{.relative = spec.at("path").get<std::string>(),
                  .content = spec.at("content").get<std::string>()};
  const fs::path target = fs::absolute(write.relative);
  write.path = target.string();
  write.existed = fs::exists(target);
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path());
  }
  std::ofstream(target, std::ios::binary) << write.content;
  return write;
}

// A grandchild `sleep 1000` in this process's group (not a new session), sharing its stdout and
// stderr like a background job an agent left behind; its pid goes to `pid_path`, complete when
// the file appears.
void spawn_background(const std::string& pid_path) {
  // The pipe closes on exec: once it reads EOF the pid is the sleeper's, not a copy of ours.
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    throw ScriptError{std::string("spawn_background: ") + std::strerror(errno)};
  }
  const pid_t pid = fork();
  if (pid == 0) {
    execlp("sleep", "sleep", "1000", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(exec_pipe[1]);
  read_fd(exec_pipe[0]);
  close(exec_pipe[0]);
  const std::string partial = pid_path + ".partial";
  std::ofstream(partial) << pid << "\n";
  fs::rename(partial, pid_path);
}

std::string big_text(std::size_t bytes) {
  std::string text(bytes, ' ');
  for (std::size_t i = 0; i < bytes; ++i) {
    text[i] = static_cast<char>('a' + i % 26);
  }
  return text;
}

[[noreturn]] void crash(const json& run) {
  const char* message = "fake-agent-cli: Segmentation fault (simulated)\n";
  write_all(2, message);
  if (run.contains("exit_code")) {
    std::exit(run["exit_code"].get<int>());
  }
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  std::signal(SIGSEGV, SIG_DFL);
  std::raise(SIGSEGV);
  std::abort();
}

// Plays one run of the script; returns the exit code.
int play(const std::string& format, const json& run, const std::string& prompt) {
  Output out(run.value("junk_lines", false));
  auto dialect = make_dialect(format, out, run.value("session", new_session_id(format)));
  if (run.contains("spawn_background")) {
    spawn_background(run["spawn_background"].get<std::string>());
  }
  if (const int delay = run.value("sleep_ms", 0); delay > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
  }
  dialect->start(fs::current_path().string(), prompt);
  if (const std::size_t bytes = run.value("big_line_bytes", std::size_t{0}); bytes > 0) {
    dialect->say(big_text(bytes));
  }
  Ending ending;
  for (const json& step : run.value("steps", json::array())) {
    ++ending.steps;
    if (step.contains("say")) {
      ending.final_text = step["say"].get<std::string>();
      dialect->say(ending.final_text);
    } else if (step.contains("shell")) {
      dialect->shell(run_shell(step["shell"].get<std::string>()));
    } else if (step.contains("write")) {
      dialect->write(write_file(step["write"]));
    } else if (step.contains("notice")) {
      dialect->notice(step["notice"].get<std::string>());
    } else {
      throw ScriptError{"unknown step " + step.dump() + " (say, shell, write, notice)"};
    }
  }
  if (run.contains("usage")) {
    const json& usage = run["usage"];
    ending.tokens = {.input = usage.value("input", std::int64_t{0}),
                     .output = usage.value("output", std::int64_t{0}),
                     .cached = usage.value("cached", std::int64_t{0})};
  }
  if (run.contains("cost")) {
    ending.cost = run["cost"].get<double>();
  }
  ending.error = run.value("error_message", std::string("Internal server error"));
  if (run.contains("stderr")) {
    write_all(2, run["stderr"].get<std::string>());
  }
  const std::string end = run.value("end", std::string("ok"));
  // Where the format ends a failed run with a non-zero exit (goose and aider exit 0).
  const int error_exit = format == "goose" || format == "aider" ? 0 : 1;
  int exit_code = 0;
  if (end == "ok") {
    dialect->finish_ok(ending);
  } else if (end == "error" || end == "exit0_error") {
    dialect->finish_error(ending);
    exit_code = end == "error" ? error_exit : 0;
  } else if (end == "crash") {
    crash(run);
  } else if (end == "hang") {
    for (;;) {
      pause();
    }
  } else if (end == "chatter") {
    for (;;) {
      dialect->tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  } else if (end != "no_terminal") {
    throw ScriptError{"unknown end \"" + end +
                      "\" (ok, error, exit0_error, crash, no_terminal, hang, chatter)"};
  }
  return run.value("exit_code", exit_code);
}

int main_of(const std::vector<std::string>& args) {
  const std::string format = format_of(args.at(0));
  if (args.size() > 1 && args[1] == "--version") {
    std::cout << "fake-agent-cli " << format << "\n";
    return 0;
  }
  if (std::find(std::begin(k_formats), std::end(k_formats), format) == std::end(k_formats)) {
    throw ScriptError{"unknown format \"" + format +
                      "\": name the program claude, codex, gemini, goose, opencode or aider, or "
                      "set FAKE_AGENT_FORMAT"};
  }
  const char* script_env = std::getenv("FAKE_AGENT_SCRIPT");
  if (script_env == nullptr || *script_env == 0) {
    throw ScriptError{"FAKE_AGENT_SCRIPT is not set (the path of the JSON script to play)"};
  }
  const std::string script_path = fs::absolute(script_env).string();
  std::ifstream in(script_path, std::ios::binary);
  if (!in) {
    throw ScriptError{script_path + ": cannot read the script"};
  }
  std::stringstream text;
  text << in.rdbuf();
  const json script = json::parse(text.str(), nullptr, false);
  if (script.is_discarded() || !script.is_object() || !script.contains("runs") ||
      !script["runs"].is_array()) {
    throw ScriptError{script_path + ": not a JSON object {\"runs\": [...]}"};
  }
  const std::size_t index = take_run_index(script_path, script["runs"].size());
  const json& run = script["runs"][index];
  try {
    const std::string stdin_text = run.value("read_stdin", true) ? read_fd(0) : std::string();
    log_invocation(script_path, args, stdin_text, run, index, format);
    std::string prompt = stdin_text;
    // Gemini echoes its prompt: the -p text appended to piped stdin.
    while (format == "gemini" && !prompt.empty() && prompt.back() == '\n') {
      prompt.pop_back();
    }
    for (std::size_t i = 1; format == "gemini" && i + 1 < args.size(); ++i) {
      if (args[i] == "-p" || args[i] == "--prompt") {
        prompt += (prompt.empty() ? "" : "\n\n") + args[i + 1];
      }
    }
    return play(format, run, prompt);
  } catch (const json::exception& error) {
    throw ScriptError{script_path + " run " + std::to_string(index) + ": " + error.what()};
  } catch (const ScriptError& error) {
    throw ScriptError{script_path + " run " + std::to_string(index) + ": " + error.message};
  }
}

} // namespace
} // namespace fake_agent_cli

int main(int argc, char** argv) {
  try {
    return fake_agent_cli::main_of(std::vector<std::string>(argv, argv + argc));
  } catch (const fake_agent_cli::ScriptError& error) {
    std::cerr << "fake-agent-cli: " << error.message << "\n";
  } catch (const std::exception& error) {
    std::cerr << "fake-agent-cli: " << error.what() << "\n";
  }
  return fake_agent_cli::k_usage_exit;
}
