#pragma once

#include "arguments.h"

#include "ralph/core/error.h"
#include "ralph/tools/tool.h"

#include <string_view>

namespace ralph::tools {

// A tool whose body reports failures as Results, so it can propagate them with TRY. `run`
// parses the arguments and calls `call`; an Error from either becomes the error result the model
// sees (its message, as `error_result` makes it). Error results made by `call` itself pass
// through unchanged.
class ResultTool : public Tool {
public:
  ToolResult run(std::string_view arguments_json, const ToolContext& context) final;

protected:
  virtual Result<ToolResult> call(const Arguments& args, const ToolContext& context) = 0;
  // True for tools that never change a file, whatever their arguments (ToolResult::read_only).
  virtual bool read_only() const { return false; }
};

} // namespace ralph::tools
