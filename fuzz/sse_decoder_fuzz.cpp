// SseDecoder: the events are the same whatever the chunking (whole, at pseudo-random cuts, byte
// by byte), and so are the retry value and the pending partial event.
#include "fuzz_support.h"
#include "support/stream_chunks.h"

#include "ralph/http/sse_decoder.h"

#include <fmt/format.h>

namespace {

using ralph::http::SseDecoder;
using ralph::http::SseEvent;

struct Decoded {
  std::string events;
  std::string rest;
};

Decoded decode(const std::vector<std::string_view>& chunks) {
  Decoded out;
  SseDecoder decoder([&](const SseEvent& event) {
    ralph::fuzz::check(!event.data.empty(), "an event with empty data was dispatched");
    out.events += fmt::format("[{:?}|{:?}|{:?}]", event.event, event.data, event.id);
  });
  for (std::string_view chunk : chunks) {
    decoder.feed(chunk);
  }
  out.rest = fmt::format("{}|{}", decoder.has_partial_event(), decoder.retry_ms().value_or(-1));
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = ralph::fuzz::as_text(data, size);
  const Decoded whole = decode({text});
  const Decoded cut = decode(ralph::fuzz::chunks_of(text));
  ralph::fuzz::check(cut.events == whole.events && cut.rest == whole.rest,
                     "chunking changed the events");
  if (size <= 512) {
    const Decoded bytewise = decode(ralph::testing::bytewise(text));
    ralph::fuzz::check(bytewise.events == whole.events && bytewise.rest == whole.rest,
                       "byte-by-byte feeding changed the events");
  }
  return 0;
}
