#pragma once

#include "ralph/llm/provider.h"

#include <cstddef>
#include <string_view>

namespace ralph::bench {

// Stands in for the agent's observer without an event sink: touches every delta.
class CountingObserver final : public llm::StreamObserver {
public:
  void on_text(std::string_view delta) override { bytes += delta.size(); }
  void on_tool_call(const ToolCall& partial) override { bytes += partial.name.size(); }
  std::size_t bytes = 0;
};

} // namespace ralph::bench
