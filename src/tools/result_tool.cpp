#include "result_tool.h"

#include <utility>

namespace ralph::tools {

ToolResult ResultTool::run(std::string_view arguments_json, const ToolContext& context) {
  auto args = Arguments::parse(arguments_json);
  if (!args) {
    return error_result(std::move(args.error().message));
  }
  auto result = call(*args, context);
  if (!result) {
    return error_result(std::move(result.error().message));
  }
  return std::move(*result);
}

} // namespace ralph::tools
