#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/core/tool_spec.h"

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::llm {

// Why the model stopped, normalised across providers.
enum class StopReason {
  end_turn,   // natural end (OpenAI "stop", Anthropic "end_turn")
  tool_use,   // wants tool results (OpenAI "tool_calls", Anthropic "tool_use")
  max_tokens, // output cap or context window hit
  stop_sequence,
  content_filter, // OpenAI "content_filter"
  refusal,        // Anthropic "refusal"
  pause_turn,     // Anthropic server-tool pause
  unknown,        // anything else; the raw value is kept in ChatResponse::raw_stop_reason
};

const char* to_string(StopReason reason);

struct ChatRequest {
  std::string model; // without the "provider/" prefix
  std::string system;
  std::span<const Message> messages; // not owned; must outlive the call
  std::vector<ToolSpec> tools;       // each `parameters` must be valid JSON text
  int max_tokens = 4096;
  std::optional<double> temperature;
  bool stream = true;
  // When set, ask for JSON matching this schema (JSON text), where the backend supports it.
  std::optional<std::string> json_schema;
  std::string json_schema_name = "response"; // OpenAI requires a name
  bool json_schema_strict = false;           // OpenAI strict mode needs a schema in its subset
};

struct ChatResponse {
  Message message; // role assistant
  StopReason stop_reason = StopReason::unknown;
  std::string raw_stop_reason;
  Usage usage;
  std::string model;      // as reported by the server
  std::string request_id; // x-request-id / request-id header, when present
};

// Streaming callbacks. All are optional to override; called on the caller's thread. A
// non-streaming request reports its whole answer through the same calls once it arrived.
class StreamObserver {
public:
  virtual ~StreamObserver() = default;
  virtual void on_text(std::string_view /*delta*/) {}
  virtual void on_thinking(std::string_view /*delta*/) {}
  // A tool call began (its id and name are known; arguments are still arriving).
  virtual void on_tool_call(const ToolCall& /*partial*/) {}
  // Try `attempt` (1-based) failed with `error`; the request is sent again after `delay`.
  // Whatever the calls above delivered since the previous on_retry (or the start) is void: the
  // ChatResponse holds only the output of the try that succeeds.
  virtual void on_retry(const Error& /*error*/, int /*attempt*/,
                        std::chrono::milliseconds /*delay*/) {}
};

// A chat model behind one interface: OpenAI-compatible, Anthropic, Ollama, scripted.
// Implementations retry transient faults themselves, before and after streaming started (see
// StreamObserver::on_retry), and return typed errors carrying HTTP status, provider message and
// request id; API keys never appear in them. Not thread-safe per instance; use one per session.
class Provider {
public:
  virtual ~Provider() = default;
  virtual Result<ChatResponse> chat(const ChatRequest& request, StreamObserver* observer,
                                    const CancelToken& cancel) = 0;
  // "openai", "openai-responses", "anthropic", "ollama", "openai-compat", "scripted"
  virtual std::string_view name() const = 0;
};

} // namespace ralph::llm
