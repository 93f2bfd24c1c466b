#include "llm/body_reader.h"

#include "ralph/core/try.h"

namespace ralph::llm {

Result<ChatResponse> BodyReader::finish(const http::Response& response) {
  TRY_ASSIGN(ChatResponse out, m_read(m_provider, m_secret, response));
  if (m_observer == nullptr) {
    return out;
  }
  for (const ThinkingBlock& block : out.message.thinking) {
    if (!block.thinking.empty()) {
      m_observer->on_thinking(block.thinking);
    }
  }
  if (!out.message.content.empty()) {
    m_observer->on_text(out.message.content);
  }
  for (const ToolCall& call : out.message.tool_calls) {
    m_observer->on_tool_call(call);
  }
  return out;
}

} // namespace ralph::llm
