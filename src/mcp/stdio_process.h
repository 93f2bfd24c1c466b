#pragma once

#include "ralph/core/error.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace ralph::mcp {

// How to start a stdio server.
struct StdioLaunch {
  std::vector<std::string> argv; // argv[0] without a slash is looked up in PATH
  std::filesystem::path cwd;
  std::vector<std::string> environment; // "NAME=value": all the child gets
};

// A started server and our ends of its stdio (close-on-exec; stdin is a socket so that writing
// to a child that died is EPIPE, not a SIGPIPE that would end ralph; stderr is non-blocking).
struct StdioProcess {
  int pid = -1; // also its process group and session
  int in = -1;
  int out = -1;
  int err = -1;
};

// Starts `launch` in a session of its own with default signal dispositions. A Result error
// (kind `subprocess`) names the command and why it could not start.
Result<StdioProcess> spawn_stdio_process(const StdioLaunch& launch);

// Waits up to `grace` for the server to exit (its stdin already closed), then sends its group
// SIGTERM and waits `grace` again, then SIGKILL; whatever of its group is left is killed and the
// server reaped. Blocks the calling thread.
void stop_stdio_process(int pid, std::chrono::milliseconds grace);

} // namespace ralph::mcp
