#pragma once

#include "ralph/core/message.h"
#include "ralph/tools/tool.h"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::tools {

// The tools offered to a model, by name. Owns its tools. Not thread-safe for registration;
// `run` may be called concurrently only if the tools themselves allow it.
class Registry {
public:
  // Replaces any tool of the same name.
  void add(std::unique_ptr<Tool> tool);
  const Tool* find(std::string_view name) const;
  // Specs in registration order, for the provider request.
  std::vector<ToolSpec> specs() const;
  // Runs the call; an unknown tool name is an error result naming the available tools.
  ToolResult run(const ToolCall& call, const ToolContext& context) const;

private:
  std::vector<std::unique_ptr<Tool>> m_tools;
  std::map<std::string, Tool*, std::less<>> m_by_name;
};

} // namespace ralph::tools
