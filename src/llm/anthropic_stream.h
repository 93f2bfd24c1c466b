#pragma once

#include "llm/anthropic_response.h"
#include "llm/exchange.h"

#include "ralph/http/sse_decoder.h"
#include "ralph/llm/provider.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::llm {

class JsonReader;

// Accumulates a Messages SSE stream (§3.5 of the wire-format notes), keyed on each payload's
// JSON `type`, and forwards deltas to the observer as they arrive. Blocks are kept by `index`
// (not arrival order); `input_json_delta` fragments are concatenated and judged only at the end;
// usage updates replace (they are cumulative); `ping` and unknown event or delta types are
// skipped; an `error` event fails the try (retryable when the server was overloaded). The stream
// is complete only at `message_stop`. Linear in the stream's size; events are read without
// building a DOM.
class AnthropicStreamReader final : public ResponseReader {
public:
  AnthropicStreamReader(std::string_view secret, StreamObserver* observer);

  bool streaming() const override { return true; }
  void begin() override;
  bool feed(std::string_view bytes) override;
  const std::optional<Error>& failure() const override { return m_failure; }
  Result<ChatResponse> finish(const http::Response& response) override;

private:
  // What one event says; buffers are reused from event to event.
  struct Event {
    std::string type;
    std::int64_t index = 0;
    std::string model;
    AnthropicUsage usage; // starts as the stream's usage; fields present replace
    std::string stop_reason;
    AnthropicBlock block; // content_block_start
    std::string block_type;
    std::string delta_type;
    std::string delta_text; // text, partial_json or thinking
    std::string delta_signature;
  };

  void on_event(const http::SseEvent& event);
  bool read_event(std::string_view data);
  void read_usage(JsonReader& reader);
  void read_message(JsonReader& reader);
  void read_block(JsonReader& reader);
  void read_delta(JsonReader& reader);
  void apply_event();
  void start_block();
  void apply_delta();

  std::string_view m_secret;
  StreamObserver* m_observer;
  std::optional<http::SseDecoder> m_decoder;
  Event m_event;
  std::map<std::int64_t, AnthropicBlock> m_blocks;
  AnthropicUsage m_usage;
  std::string m_model;
  std::string m_stop_reason;
  bool m_done = false; // message_stop arrived
  std::optional<Error> m_failure;
};

} // namespace ralph::llm
