#pragma once

#include "ralph/agent/attempt_observer.h"
#include "ralph/core/event.h"

#include <cstddef>
#include <variant>

namespace ralph::bench {

// Counts what a terminal view or events file would receive, and the facts the loop would get,
// without printing or recording them: it touches every piece of text.
class CountingSink final : public EventSink, public agent::AttemptObserver {
public:
  void on_event(const Event& event) override {
    ++events;
    if (const auto* text = event.get<event::TextDelta>()) {
      bytes += text->text.size();
    }
  }
  void model_call_finished(const agent::ModelCall& call) override { bytes += call.model.size(); }
  void tool_call_finished(int, const ToolCall&, const tools::ToolResult& result) override {
    ++events;
    bytes += result.content.size();
  }
  std::size_t events = 0;
  std::size_t bytes = 0;
};

} // namespace ralph::bench
