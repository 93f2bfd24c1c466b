#include "result_tool.h"

#include <utility>

namespace ralph::tools {

ToolResult ResultTool::run(std::string_view arguments_json, const ToolContext& context) {
  ToolResult out;
  if (auto args = Arguments::parse(arguments_json); !args) {
    out = error_result(std::move(args.error().message));
  } else if (auto result = call(*args, context); !result) {
    out = error_result(std::move(result.error().message));
  } else {
    out = std::move(*result);
  }
  out.read_only = read_only();
  return out;
}

} // namespace ralph::tools
