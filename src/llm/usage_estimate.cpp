#include "llm/usage_estimate.h"

#include <algorithm>

namespace ralph::llm {

std::int64_t estimate_tokens(std::size_t bytes) {
  return static_cast<std::int64_t>((bytes + 3) / 4);
}

std::size_t request_bytes(const ChatRequest& request) {
  std::size_t bytes = request.system.size();
  for (const Message& message : request.messages) {
    bytes += message.content.size();
    for (const ToolCall& call : message.tool_calls) {
      bytes += call.name.size() + call.arguments.size();
    }
  }
  for (const ToolSpec& tool : request.tools) {
    bytes += tool.name.size() + tool.description.size() + tool.parameters.size();
  }
  return bytes;
}

void estimate_missing_usage(const ChatRequest& request, ChatResponse& response) {
  if (response.usage.input_tokens > 0) {
    return;
  }
  const Message& message = response.message;
  std::size_t output_bytes = message.content.size();
  for (const ThinkingBlock& block : message.thinking) {
    output_bytes += block.thinking.size();
  }
  for (const ToolCall& call : message.tool_calls) {
    output_bytes += call.name.size() + call.arguments.size();
  }
  response.usage.input_tokens = estimate_tokens(request_bytes(request));
  response.usage.output_tokens =
      std::max(response.usage.output_tokens, estimate_tokens(output_bytes));
  response.usage.estimated = true;
}

Result<ChatResponse> with_usage(const ChatRequest& request, Result<ChatResponse> response) {
  if (response) {
    estimate_missing_usage(request, *response);
  }
  return response;
}

} // namespace ralph::llm
