#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/tool_spec.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::tools {

// What a tool call produced. Failures are results too (`is_error`), so they go back to the
// model instead of stopping the run.
struct ToolResult {
  std::string content;
  bool is_error = false;
  std::optional<int> exit_code; // for process-backed tools: the child's exit status
  bool timed_out = false;
  bool truncated = false;
  // The call changed files by design (write_file, edit_file): a change even when the file's size
  // and time stamp do not show it.
  bool wrote_files = false;
  // The call cannot have changed any file (read_file, list_dir, search_files): verifier-first
  // runs do not look for changes after it.
  bool read_only = false;
  std::chrono::milliseconds duration{0};
};

// How far a long call got, as a tool reports it while it runs.
struct ToolProgressUpdate {
  double progress = 0;
  std::optional<double> total; // unknown when not said
  std::string message;
};

// Per-call context handed to every tool.
struct ToolContext {
  std::filesystem::path workspace; // absolute, canonical; file tools never leave it
  CancelToken cancel;
  // Called on the calling thread while `run` runs; may be empty.
  std::function<void(const ToolProgressUpdate&)> on_progress;
};

// One tool the model can call. Implementations validate their own arguments (raw JSON text
// from the model, possibly malformed) and report misuse as an error result.
class Tool {
public:
  virtual ~Tool() = default;
  virtual const ToolSpec& spec() const = 0;
  virtual ToolResult run(std::string_view arguments_json, const ToolContext& context) = 0;
};

} // namespace ralph::tools
