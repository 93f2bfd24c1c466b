#include "ralph/tools/registry.h"

#include "arguments.h"

#include <fmt/format.h>

#include <exception>

namespace ralph::tools {

void Registry::add(std::unique_ptr<Tool> tool) {
  std::string name = tool->spec().name;
  if (auto it = m_by_name.find(name); it != m_by_name.end()) {
    // Keep the old tool's place in the order the model sees.
    for (auto& slot : m_tools) {
      if (slot.get() == it->second) {
        slot = std::move(tool);
        it->second = slot.get();
        return;
      }
    }
  }
  m_tools.push_back(std::move(tool));
  m_by_name[std::move(name)] = m_tools.back().get();
}

const Tool* Registry::find(std::string_view name) const {
  const auto it = m_by_name.find(name);
  return it == m_by_name.end() ? nullptr : it->second;
}

std::vector<ToolSpec> Registry::specs() const {
  std::vector<ToolSpec> result;
  result.reserve(m_tools.size());
  for (const auto& tool : m_tools) {
    result.push_back(tool->spec());
  }
  return result;
}

ToolResult Registry::run(const ToolCall& call, const ToolContext& context) const {
  const auto it = m_by_name.find(call.name);
  if (it == m_by_name.end()) {
    std::string names;
    for (const auto& tool : m_tools) {
      names += names.empty() ? tool->spec().name : ", " + tool->spec().name;
    }
    return error_result(fmt::format("unknown tool `{}`; available tools: {}", call.name,
                                    names.empty() ? "(none)" : names));
  }
  const auto start = std::chrono::steady_clock::now();
  ToolResult result;
  try {
    result = it->second->run(call.arguments, context);
  } catch (const std::exception& e) {
    // Tools report failures as results; an exception here is a bug or an exotic file system
    // error, and it must not end the whole run.
    result = error_result(fmt::format("tool `{}` failed unexpectedly: {}", call.name, e.what()));
  }
  if (result.duration.count() == 0) {
    result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
  }
  return result;
}

} // namespace ralph::tools
