#pragma once

// Shared by the two stream reader targets: a reader fed whole and at cuts gives the same
// response or error, an error never shows the key, and nothing throws.

#include "fuzz_support.h"
#include "llm/llm_test_support.h"

namespace ralph::fuzz {

// The response as the llm tests compare it; an error must not show the key.
inline std::string describe(const Result<llm::ChatResponse>& result) {
  if (!result) {
    check(result.error().message.find(k_secret) == std::string::npos, "the key is in an error");
  }
  return llm::testing::summary(result);
}

inline std::string read_all(llm::ResponseReader& reader,
                            const std::vector<std::string_view>& chunks) {
  return describe(llm::testing::read_chunks(reader, chunks));
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
