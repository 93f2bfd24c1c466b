#pragma once

// Shared by the two stream reader targets: a reader fed whole and at cuts gives the same
// response or error, an error never shows the key, and nothing throws.

#include "fuzz_support.h"
#include "llm/exchange.h"

#include "ralph/core/text.h"
#include "ralph/llm/provider.h"

#include <fmt/format.h>

namespace ralph::fuzz {

inline std::string describe(const Result<llm::ChatResponse>& result) {
  if (!result) {
    check(result.error().message.find(k_secret) == std::string::npos, "the key is in an error");
    return fmt::format("error[{}]: {}", to_string(result.error().kind), result.error().message);
  }
  const llm::ChatResponse& r = *result;
  std::string out =
      fmt::format("{:?} {} {:?} {:?} {}/{}/{}/{}", r.message.content, to_string(r.stop_reason),
                  r.raw_stop_reason, r.model, r.usage.input_tokens, r.usage.output_tokens,
                  r.usage.cache_read_tokens, r.usage.cache_write_tokens);
  for (const ToolCall& call : r.message.tool_calls) {
    out += fmt::format(" call({:?},{:?},{:?})", call.id, call.name, call.arguments);
  }
  for (const ThinkingBlock& block : r.message.thinking) {
    out += fmt::format(" thinking({:?},{:?},{},{:?})", block.thinking, block.signature,
                       block.redacted, block.redacted_data);
  }
  return out;
}

inline std::string read_all(llm::ResponseReader& reader,
                            const std::vector<std::string_view>& chunks) {
  reader.begin();
  for (std::string_view chunk : chunks) {
    if (!reader.feed(chunk)) {
      break;
    }
  }
  if (reader.failure()) {
    return describe(fail(*reader.failure()));
  }
  http::Response response;
  response.status = 200;
  return describe(reader.finish(response));
}

// Whole versus cut, on one reader (begin() must start afresh) and on a new one.
template <typename MakeReader> void check_stream(std::string_view stream, MakeReader make_reader) {
  auto reader = make_reader();
  const std::string whole = read_all(*reader, {stream});
  const std::string cut = read_all(*reader, chunks_of(stream));
  check(cut == whole, "chunking changed the response");
  auto fresh = make_reader();
  check(read_all(*fresh, {stream}) == whole, "a reused reader differs from a new one");
}

} // namespace ralph::fuzz
