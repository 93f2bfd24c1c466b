// The Responses body reader over any body: nothing throws, no key in an error, and a response
// object reads the same whole as in a stream's terminal event.
#include "llm/body_reader.h"
#include "llm/responses_response.h"
#include "llm/responses_stream.h"
#include "stream_reader_fuzz.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ralph;
  const std::string_view body = fuzz::as_text(data, size);
  http::Response response;
  response.status = 200;
  response.body = std::string(body);
  llm::BodyReader reader(llm::read_responses_body, "openai-responses", fuzz::k_secret, nullptr);
  const std::string whole = fuzz::describe(reader.finish(response));

  const auto parsed = parse_json(body, "body");
  if (!parsed || !parsed->is_object()) {
    return 0;
  }
  const std::string event =
      nlohmann::json{{"type", "response.completed"}, {"response", *parsed}}.dump();
  if (!parse_json(event, "event")) {
    return 0; // one level too deep once wrapped
  }
  llm::ResponsesStreamReader stream("openai-responses", fuzz::k_secret, nullptr);
  const std::string streamed = fuzz::read_all(stream, {"data: " + event + "\n\n"});
  fuzz::check(streamed == whole, "the terminal event reads unlike the same body");
  return 0;
}
