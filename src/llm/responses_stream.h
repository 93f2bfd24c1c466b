#pragma once

#include "llm/exchange.h"

#include "ralph/http/sse_decoder.h"
#include "ralph/llm/provider.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::llm {

// Accumulates a Responses API SSE stream (§2 of the wire-format notes), keyed on each payload's
// JSON `type` (the `event:` line is only a cross-check), and forwards text, reasoning and
// tool-call announcements to the observer as they arrive. The answer is read from the terminal
// event's response object (`response.completed`, its alias `response.done`, or
// `response.incomplete`); when a gateway leaves its `output` empty, from the items of
// `response.output_item.done` events, else from the text deltas. `error` events and
// `response.failed` fail the try (retryable when the code says the server failed); unknown
// events, `sequence_number` gaps, keep-alive comments and `[DONE]` are ignored. The stream is
// complete only at a terminal event. Delta events, the bulk of a stream, are read without
// building a DOM.
class ResponsesStreamReader final : public ResponseReader {
public:
  ResponsesStreamReader(std::string_view provider, std::string_view secret,
                        StreamObserver* observer);

  bool streaming() const override { return true; }
  void begin() override;
  bool feed(std::string_view bytes) override;
  const std::optional<Error>& failure() const override { return m_failure; }
  Result<ChatResponse> finish(const http::Response& response) override;

private:
  void on_event(const http::SseEvent& event);
  // True when `data` was a delta event (and has been applied); false when it needs a full parse.
  bool read_delta(std::string_view data);
  void on_structured_event(std::string_view event_name, std::string_view data);
  void fail_with(const nlohmann::json& payload);

  std::string_view m_provider;
  std::string_view m_secret;
  StreamObserver* m_observer;
  std::optional<http::SseDecoder> m_decoder;
  std::string m_type;  // of the event being read; reused
  std::string m_delta; // of the event being read; reused
  std::string m_text;  // every output_text delta, for gateways that send no items
  std::string m_thinking;
  nlohmann::json m_items = nlohmann::json::array(); // from response.output_item.done
  nlohmann::json m_terminal;                        // the terminal event's response
  bool m_done = false;
  std::optional<Error> m_failure;
};

} // namespace ralph::llm
