#pragma once

#include "ralph/tools/tool.h"

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <signal.h>
#include <string>
#include <sys/types.h>
#include <thread>

namespace ralph::tools::testing {

// Runs `tool` with raw JSON arguments in `workspace`.
inline ToolResult call(Tool& tool, const std::filesystem::path& workspace, std::string_view json,
                       CancelToken cancel = {}) {
  ToolContext context;
  context.workspace = workspace;
  context.cancel = std::move(cancel);
  return tool.run(json, context);
}

// Waits for a condition the test cannot be notified of (a file a child process writes, a process
// that init reaps), checking every few milliseconds. The bound only turns a hang into a failure.
template <typename Condition>
bool eventually(Condition condition, std::chrono::seconds bound = std::chrono::seconds(30)) {
  const auto give_up = std::chrono::steady_clock::now() + bound;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > give_up) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Whether `pid` is gone: no such process, or a zombie waiting for init to reap it.
inline bool process_is_dead(pid_t pid) {
  if (::kill(pid, 0) != 0) {
    return errno == ESRCH;
  }
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto paren = text.rfind(") ");
  return paren != std::string::npos && paren + 2 < text.size() &&
         (text[paren + 2] == 'Z' || text[paren + 2] == 'X');
}

// The pid a child process wrote to `file` (as `echo $! > file` does); 0 when not there yet.
inline pid_t read_pid(const std::filesystem::path& file) {
  std::ifstream in(file);
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

} // namespace ralph::tools::testing
