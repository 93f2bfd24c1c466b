#pragma once

#include "ralph/llm/provider.h"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::llm {

// One model turn of a script.
struct ScriptedTurn {
  std::string text;
  std::string thinking;
  std::vector<ToolCall> tool_calls; // ids are generated: call_1, call_2, ...
};

// Replays a script of model turns in-process, for demos and tests that need no server:
//   {"model": "demo", "turns": [{"text": "...", "thinking": "...",
//     "tool_calls": [{"name": "write_file", "arguments": {...} or "raw text"}]}, ...]}
// Each chat() plays the next turn: text streams to the observer in small pieces, usage is an
// estimate (bytes / 4), the stop reason is tool_use when the turn calls tools, else end_turn.
// Asking for more turns than the script has is an error.
class ScriptedProvider final : public Provider {
public:
  // Parses script text; `origin` (a file name, or e.g. "built-in demo script") names it in
  // errors such as "script.json: turns[2].tool_calls[0]: missing name".
  static Result<std::unique_ptr<ScriptedProvider>> from_text(std::string_view text,
                                                             std::string_view origin);
  static Result<std::unique_ptr<ScriptedProvider>> from_file(const std::filesystem::path& path);

  ScriptedProvider(std::string model, std::vector<ScriptedTurn> turns);

  Result<ChatResponse> chat(const ChatRequest& request, StreamObserver* observer,
                            const CancelToken& cancel) override;
  std::string_view name() const override { return "scripted"; }

  // Turns played so far.
  std::size_t turns_played() const { return m_next; }

private:
  std::string m_model;
  std::vector<ScriptedTurn> m_turns;
  std::size_t m_next = 0;
  int m_next_call_id = 1;
};

} // namespace ralph::llm
