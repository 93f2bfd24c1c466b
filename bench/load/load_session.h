#pragma once

#include "ralph/engine/io.h"
#include "ralph/session/runtime.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ralph::bench {

// What every session of a load run does.
struct SessionSettings {
  std::string base_url; // the load server's, with "/v1"
  int tool_turns = 3;   // model turns that call a tool before the answer
  bool shell = false;   // the tool is `shell` ("echo hi", a child process) instead of read_file
  bool stream = true;   // streamed answers (SSE) or whole JSON bodies
  bool store = false;   // record every step in the SQLite session store of the workspace
};

// What one session measured.
struct SessionTimes {
  int turns = 0; // model calls that returned
  bool answered = false;
  std::string error;               // why it did not answer
  std::vector<double> latency_us;  // each model call: request start to response parsed
  std::vector<double> turn_cpu_us; // the process's CPU from one model call's start to the next's
};

// A workspace for session `index` under `root`: a folder with a small notes.txt to read.
std::filesystem::path make_session_workspace(const std::filesystem::path& root, int index);

// Runs one session as a user's is run (session::run_goal: the outer loop, the built-in agent and
// tools, redaction, the record when `settings.store`) on the goal the load server answers
// (settings' tool turns, then an answer), its I/O from `io`. Only the model's provider is wrapped,
// to time each call.
SessionTimes run_load_session(session::Runtime& runtime, engine::Io& io,
                              const SessionSettings& settings,
                              const std::filesystem::path& workspace, int index);

} // namespace ralph::bench
