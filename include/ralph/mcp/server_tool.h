#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <optional>
#include <string>

namespace ralph::mcp {

// What a tool of ralph's MCP server says about itself in `tools/list`. Schemas are JSON Schema
// 2020-12 objects as JSON text; the hints become the tool's `annotations`.
struct ServerToolSpec {
  std::string name;
  std::string title;
  std::string description;
  std::string input_schema = R"({"type":"object","properties":{}})";
  std::string output_schema; // empty: none declared
  bool read_only = false;    // readOnlyHint: it changes nothing
  bool destructive = false;  // destructiveHint
  bool idempotent = false;   // idempotentHint
  bool open_world = false;   // openWorldHint
  bool runs_anything = true; // starts, stops or runs something: refused by a read-only server
};

// One step of a call's progress, sent as `notifications/progress` when the client asked.
struct ToolProgress {
  double progress = 0;
  std::optional<double> total;
  std::string message;
};

// What a call may use while it runs: `cancel` is set when the client cancels the request (or
// goes away); `progress` is never empty (a no-op when the client did not ask for progress).
struct ToolCallContext {
  CancelToken cancel;
  std::function<void(const ToolProgress&)> progress;
};

// A call's result: `structured` is a JSON object's text (empty: none), `text` the summary a
// model reads, `is_error` a failure the model should see (not a protocol error).
struct ToolOutcome {
  std::string structured;
  std::string text;
  bool is_error = false;
};

// A tool of ralph's MCP server. `call` gets the arguments as the client sent them (an object);
// an Error of kind `usage` is an invalid argument (-32602 with its message); other errors
// become results with isError, so the model reads them. Called from several threads at once.
class ServerTool {
public:
  virtual ~ServerTool() = default;
  virtual const ServerToolSpec& spec() const = 0;
  virtual Result<ToolOutcome> call(const nlohmann::json& arguments,
                                   const ToolCallContext& context) = 0;
};

} // namespace ralph::mcp
