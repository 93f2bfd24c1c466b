#pragma once

// The bodies the fake provider answers with, in the exact OpenAI (Chat Completions and
// Responses) and Anthropic wire formats.

#include "fake_provider/fake_provider_server.h"

#include <string>
#include <utility>
#include <vector>

namespace ralph::testing {

// What the fake knows about a request when it answers.
struct WireRequest {
  bool stream = false;
  bool include_usage = false; // stream_options.include_usage
  std::string model;
  std::size_t body_bytes = 0;
  std::string api_key; // as received, for the 401 message that echoes it
  int number = 0;      // 1-based request number, for ids
};

// An answer ready to send.
struct WireAnswer {
  enum class Ending { complete, drop, stall };
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> writes; // the body, one element per write
  bool chunked = false;            // chunked transfer encoding; else one body with Content-Length
  Ending ending = Ending::complete;
};

// `next_call_id` numbers generated tool-call ids across the server's life.
WireAnswer openai_answer(const FakeTurn& turn, const WireRequest& request, OpenAiFlavor flavor,
                         int& next_call_id);
WireAnswer anthropic_answer(const FakeTurn& turn, const WireRequest& request, int& next_call_id);
WireAnswer responses_answer(const FakeTurn& turn, const WireRequest& request, int& next_call_id);

// A 500 in the API's error shape, with x-should-retry: false: the test forgot something.
WireAnswer harness_error(bool anthropic, const std::string& message);

} // namespace ralph::testing
