#pragma once

// Helpers shared by the llm tests: an observer that records everything, byte-split feeding of
// stream readers, and a printable summary of a response for comparisons.

#include "llm/exchange.h"
#include "support/stream_chunks.h"

#include "ralph/llm/provider.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::llm::testing {

class RecordingObserver final : public StreamObserver {
public:
  void on_text(std::string_view delta) override {
    text.append(delta);
    ++text_deltas;
  }
  void on_thinking(std::string_view delta) override { thinking.append(delta); }
  void on_tool_call(const ToolCall& partial) override { tool_calls.push_back(partial); }
  void on_retry(const Error& error, int attempt, std::chrono::milliseconds delay) override {
    retries.push_back(error);
    attempts.push_back(attempt);
    delays.push_back(delay);
    // The partial output of the failed try is void.
    text.clear();
    thinking.clear();
    tool_calls.clear();
  }

  std::string text;
  int text_deltas = 0;
  std::string thinking;
  std::vector<ToolCall> tool_calls;
  std::vector<Error> retries;
  std::vector<int> attempts;
  std::vector<std::chrono::milliseconds> delays;
};

using ralph::testing::bytewise;
using ralph::testing::random_splits;
using ralph::testing::whole;

// Feeds `chunks` to `reader` as one try whose transfer ended with a 200.
inline Result<ChatResponse> read_chunks(ResponseReader& reader,
                                        const std::vector<std::string_view>& chunks) {
  reader.begin();
  for (std::string_view chunk : chunks) {
    if (!reader.feed(chunk)) {
      break;
    }
  }
  if (reader.failure()) {
    return fail(*reader.failure());
  }
  http::Response response;
  response.status = 200;
  return reader.finish(response);
}

// Everything a response says, in one comparable string.
inline std::string summary(const Result<ChatResponse>& result) {
  if (!result) {
    return fmt::format("error[{}]: {}", to_string(result.error().kind), result.error().message);
  }
  const ChatResponse& r = *result;
  std::string out =
      fmt::format("content={:?} stop={} raw={:?} model={:?} usage={}/{}/{}/{}", r.message.content,
                  to_string(r.stop_reason), r.raw_stop_reason, r.model, r.usage.input_tokens,
                  r.usage.output_tokens, r.usage.cache_read_tokens, r.usage.cache_write_tokens);
  for (const ToolCall& call : r.message.tool_calls) {
    out += fmt::format(" call({:?},{:?},{:?})", call.id, call.name, call.arguments);
  }
  for (const ThinkingBlock& block : r.message.thinking) {
    out += fmt::format(" thinking({:?},{:?},{},{:?})", block.thinking, block.signature,
                       block.redacted, block.redacted_data);
  }
  return out;
}

} // namespace ralph::llm::testing
