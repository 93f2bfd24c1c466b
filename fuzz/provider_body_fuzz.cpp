// Non-streaming bodies and error answers of both APIs: the first byte picks the reader or the
// HTTP status. Nothing throws, and an error never shows the key.
#include "llm/anthropic_response.h"
#include "llm/body_reader.h"
#include "llm/openai_response.h"
#include "llm/provider_error.h"
#include "stream_reader_fuzz.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

#include <array>

namespace {

using namespace ralph;

void check_error(const Error& error) {
  fuzz::check(error.message.find(fuzz::k_secret) == std::string::npos, "the key is in an error");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::string_view body = fuzz::as_text(data + 1, size - 1);
  http::Response response;
  response.body = std::string(body);
  response.headers = {{"content-type", "application/json"}, {"x-request-id", "req_1"}};
  switch (data[0] % 4) {
  case 0: {
    response.status = 200;
    llm::BodyReader reader(llm::read_openai_body, "openai", fuzz::k_secret, nullptr);
    fuzz::describe(reader.finish(response));
    break;
  }
  case 1: {
    response.status = 200;
    llm::BodyReader reader(llm::read_anthropic_body, "anthropic", fuzz::k_secret, nullptr);
    fuzz::describe(reader.finish(response));
    break;
  }
  case 2: {
    constexpr std::array k_statuses = {400, 401, 403, 404, 408, 413, 429, 500, 502, 503, 529};
    response.status = k_statuses[(data[0] / 4U) % k_statuses.size()];
    const Error error =
        llm::status_error(data[0] & 0x80U ? "anthropic" : "openai", response, fuzz::k_secret);
    fuzz::check(error.kind == ErrorKind::provider, "an HTTP error is not a provider error");
    check_error(error);
    break;
  }
  default: {
    const auto payload = parse_json(body, "payload");
    if (payload) {
      check_error(llm::payload_error("openai", *payload, fuzz::k_secret));
    }
    break;
  }
  }
  return 0;
}
