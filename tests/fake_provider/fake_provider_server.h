#pragma once

// A loopback LLM server for tests: speaks the real OpenAI Chat Completions, OpenAI Responses and
// Anthropic Messages wire formats (see /work/shared/docs/llm-wire-formats.md), plays queued turns,
// and injects faults.

#include "ralph/core/message.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ralph::testing {

// What goes wrong with one answer. Each fault answers exactly one HTTP request.
enum class Fault {
  none,
  http_401,          // authentication error; the message echoes the key it received
  http_429,          // rate limited (retry_after_ms / retry_after set the hint headers)
  http_429_quota,    // OpenAI insufficient_quota: must not be retried
  http_500,          // server error
  http_529,          // overloaded (Anthropic's overloaded_error body)
  http_502_html,     // an HTML page from a proxy
  custom_error,      // `status` with `error_body` verbatim (application/json)
  malformed_json,    // 200 whose body, or one SSE payload, is broken JSON
  drop_mid_stream,   // part of the body, then the connection closes without the end marker
  mid_stream_error,  // content, then `data: {"error":...}` / `event: error` (overloaded)
  llama_error_field, // OpenAI streams: content, then the old llama.cpp `error:` field
  stall_mid_stream,  // part of the stream, then silence until the server is destroyed
  slow_first_byte,   // nothing for first_byte_delay (ended early by the server's destruction)
};

// How /v1/chat/completions streams, to exercise each backend's quirks.
enum class OpenAiFlavor {
  openai,    // the reference: usage chunk with `choices: []` only when include_usage is set
  llama_cpp, // usage + timings on the finish chunk, `:` keep-alive comments, reasoning_content
  ollama,    // whole tool calls in one chunk, all at index 0; `reasoning` field
};

// One model turn to answer with.
struct FakeTurn {
  std::string text;
  std::vector<ToolCall> tool_calls; // {id (empty: generated), name, arguments JSON text}
  std::string thinking;             // OpenAI: reasoning field; Anthropic: a signed thinking block
  Fault fault = Fault::none;
  int retry_after_ms = -1; // >= 0: a `retry-after-ms` header on the error answer
  std::string retry_after; // non-empty: a `retry-after` header, verbatim ("2", an HTTP-date)
  std::chrono::milliseconds first_byte_delay{0}; // wait before answering at all
  // Overrides finish_reason / stop_reason (e.g. "length", "refusal"). Responses: "failed" ends
  // with status failed; anything else with status incomplete and that reason ("length" reads as
  // "max_output_tokens").
  std::string stop_reason;
  bool no_usage = false; // OpenAI: no usage in the body or stream (servers that report none)
  int cached_tokens = 0; // Responses: input_tokens_details.cached_tokens (capped at the input)
  std::map<std::string, std::string> headers; // extra response headers, e.g. x-should-retry
  int status = 0;                             // custom_error only
  std::string error_body;                     // custom_error only
};

// One request as the server received it.
struct RecordedRequest {
  std::string method = "POST";
  std::string path;
  std::map<std::string, std::string> headers; // names lower-case
  std::string body;
};

// Listens on 127.0.0.1 (a free port) from construction, serving from its own threads:
// `/v1/chat/completions` and `/chat/completions` (OpenAI), `/v1/responses` and `/responses`
// (OpenAI Responses), `/v1/messages` (Anthropic), streaming or not as the request's `stream` field
// says. Responses faults: mid_stream_error sends `event: error` then `response.failed` (a whole
// body: a failed response object); llama_error_field acts as mid_stream_error. Every request is
// recorded and consumes one queued turn (unless a responder answers it); with none queued the
// answer is a 500 saying so (with x-should-retry: false). Any other path or method is recorded too
// and answered 404, so a client's side requests (health checks, telemetry) show in requests().
// Usage numbers are estimates from the sizes (request bytes / 4). Destruction ends stalled answers
// at once. Thread-safe.
class FakeProviderServer {
public:
  // `threads`: how many requests it serves at once (httplib keeps a thread per kept-alive
  // connection); 0 is httplib's default (8 on this kind of machine).
  explicit FakeProviderServer(std::size_t threads = 0);
  ~FakeProviderServer();
  FakeProviderServer(const FakeProviderServer&) = delete;
  FakeProviderServer& operator=(const FakeProviderServer&) = delete;

  // "http://127.0.0.1:PORT": OpenAI clients add "/v1", Anthropic clients use it as is.
  std::string base_url() const;

  // Queues the answer to the next request.
  void push(FakeTurn turn);
  std::size_t turns_left() const;

  // Chooses answers by content: when set, each request (already recorded) is first given to
  // `responder`, on the server's handler thread and possibly on several at once; a nullopt falls
  // back to the queue. For concurrent requests, whose order is not deterministic. Replaces any
  // earlier responder; an empty function removes it.
  using Responder = std::function<std::optional<FakeTurn>(const RecordedRequest&)>;
  void set_responder(Responder responder);

  // Every request so far, oldest first.
  std::vector<RecordedRequest> requests() const;
  // Blocks until at least `count` requests arrived or `timeout` passed; true when they did.
  bool wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const;

  // Splits every streamed body into writes of `bytes` raw bytes (cuts land inside UTF-8
  // sequences and CRLF pairs); 0, the default, writes one SSE event per write.
  void set_chunk_size(std::size_t bytes);
  void set_openai_flavor(OpenAiFlavor flavor);

private:
  struct State;
  std::unique_ptr<State> m_state;
};

} // namespace ralph::testing
