#pragma once

#include "ralph/core/message.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ralph::verify {

// One tool call of an attempt as the runtime saw it, in call order.
struct ToolRecord {
  std::string id;
  std::string name;
  std::string arguments;          // raw JSON text from the model
  std::optional<int> exit_code;   // the tool's structured exit code (process-backed tools)
  bool is_error = false;          // the tool failed (timeout, bad arguments, spawn error...)
  bool changed_workspace = false; // files in the workspace differed after the call
  std::int64_t duration_ms = 0;
};

// How the agent's attempt went, for the judge's "execution metadata".
struct AttemptMetadata {
  std::string stop_reason; // answered, max_steps, ...
  std::int64_t duration_ms = 0;
  int steps = 0;
  int tool_calls = 0;
};

// Everything a verifier may look at. Spans point into the loop's conversation and are valid
// for the duration of verify().
struct Attempt {
  int iteration = 1; // 1-based
  int max_iterations = 1;
  std::string goal;       // the user's request, as given
  std::string answer;     // the final answer as the user sees it (completion marker removed)
  std::string raw_answer; // the final answer exactly as the agent gave it
  std::span<const Message> conversation; // everything so far, this attempt included
  std::size_t attempt_begin = 0;         // index in `conversation` where this attempt starts
  std::vector<ToolRecord> tools;         // this attempt's tool calls
  AttemptMetadata metadata;
  std::vector<std::string> previous_feedback; // what earlier attempts were told, oldest first
  std::filesystem::path workspace;
  // Where verifiers keep whole outputs too large for the session record (a folder beside the
  // store, for this session); empty: they keep the head and tail only.
  std::filesystem::path output_dir;
  bool heartbeat = false; // a periodic check-in run (HEARTBEAT.md applies)
};

} // namespace ralph::verify
