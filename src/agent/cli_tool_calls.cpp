#include "agent/cli_tool_calls.h"

namespace ralph::agent {

void OpenToolCalls::start(ToolCall call, std::vector<CliEvent>& out) {
  m_open[call.id] = call;
  out.emplace_back(CliToolStarted{.call = std::move(call)});
}

const ToolCall* OpenToolCalls::find(std::string_view id) const {
  const auto it = m_open.find(id);
  return it == m_open.end() ? nullptr : &it->second;
}

void OpenToolCalls::finish(const std::string& id, const ToolCall& fallback, std::string output,
                           bool is_error, std::optional<int> exit_code,
                           std::vector<CliEvent>& out) {
  ToolCall call;
  if (const auto it = m_open.find(id); it != m_open.end()) {
    call = std::move(it->second);
    m_open.erase(it);
  } else {
    call = fallback;
    call.id = id;
    out.emplace_back(CliToolStarted{.call = call});
  }
  out.emplace_back(CliToolFinished{.call = std::move(call),
                                   .output = std::move(output),
                                   .is_error = is_error,
                                   .exit_code = exit_code});
}

} // namespace ralph::agent
