#pragma once

#include "llm/exchange.h"

#include "ralph/http/sse_decoder.h"
#include "ralph/llm/provider.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::llm {

class JsonReader;

// Accumulates a Chat Completions SSE stream (§1.4 of the wire-format notes) and forwards deltas
// to the observer as they arrive. Accepts every backend's variant: tool-call fragments keyed by
// index (interleaved too), whole calls in one chunk, a new id at a used index meaning a new call
// (old Ollama), `choices: []` chunks, usage on the finish chunk or in its own chunk,
// `reasoning_content` / `reasoning`, keep-alive comments, `data: {"error":...}` and the old
// llama.cpp `error:` field. The stream is complete at `[DONE]`, or when it ends cleanly after
// the finish chunk (some compat servers omit `[DONE]`). Linear in the stream's size; chunks
// are read without building a DOM.
class OpenAiStreamReader final : public ResponseReader {
public:
  OpenAiStreamReader(std::string_view provider, std::string_view secret, StreamObserver* observer);

  bool streaming() const override { return true; }
  void begin() override;
  bool feed(std::string_view bytes) override;
  const std::optional<Error>& failure() const override { return m_failure; }
  Result<ChatResponse> finish(const http::Response& response) override;

private:
  struct Fragment {
    std::optional<std::int64_t> index;
    std::string id;
    std::string name;
    std::string arguments;
  };
  // What one chunk says; buffers are reused from chunk to chunk.
  struct Chunk {
    bool error = false;
    std::string model;
    std::string content;
    std::string reasoning_content;
    std::string reasoning;
    std::string finish_reason;
    std::optional<Usage> usage;
    std::vector<Fragment> fragments;
    std::size_t fragment_count = 0;
  };

  void on_event(const http::SseEvent& event);
  bool read_chunk(std::string_view data);
  void read_choice(JsonReader& reader);
  void read_delta(JsonReader& reader);
  void read_fragment(JsonReader& reader);
  void apply_chunk();
  void on_tool_fragment(const Fragment& fragment, std::int64_t position);

  std::string_view m_provider;
  std::string_view m_secret;
  StreamObserver* m_observer;
  std::optional<http::SseDecoder> m_decoder;
  Chunk m_chunk;
  ChatResponse m_response;
  std::string m_thinking;
  std::vector<std::int64_t> m_call_index; // wire index of each call in m_response's tool_calls
  std::vector<bool> m_call_announced;     // on_tool_call sent for the call
  bool m_finished = false;                // a finish_reason arrived
  bool m_done = false;                    // [DONE] arrived
  std::optional<Error> m_failure;
};

} // namespace ralph::llm
