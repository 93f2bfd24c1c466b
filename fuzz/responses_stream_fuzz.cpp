// ResponsesStreamReader over any bytes: same result whatever the chunking, no key in errors.
#include "llm/responses_stream.h"
#include "stream_reader_fuzz.h"

#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ralph::fuzz::check_stream(ralph::fuzz::as_text(data, size), [] {
    return std::make_unique<ralph::llm::ResponsesStreamReader>("openai-responses",
                                                               ralph::fuzz::k_secret, nullptr);
  });
  return 0;
}
