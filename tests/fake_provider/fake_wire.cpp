#include "fake_provider/fake_wire.h"

#include "ralph/core/text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>

namespace ralph::testing {
namespace {

using Json = nlohmann::ordered_json; // keys in the order the providers send them

constexpr std::size_t k_piece_bytes = 16;
constexpr std::int64_t k_created = 1767225600;

// `text` cut into pieces of at most k_piece_bytes on UTF-8 boundaries (each piece must be valid
// UTF-8 to be a JSON string).
std::vector<std::string> pieces(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    std::string_view piece = utf8_prefix(text, k_piece_bytes);
    if (piece.empty()) {
      piece = text.substr(0, k_piece_bytes);
    }
    out.emplace_back(piece);
    text.remove_prefix(piece.size());
  }
  return out;
}

std::int64_t prompt_tokens(const WireRequest& request) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(request.body_bytes / 4));
}

std::int64_t completion_tokens(const FakeTurn& turn) {
  std::size_t bytes = turn.text.size() + turn.thinking.size();
  for (const ToolCall& call : turn.tool_calls) {
    bytes += call.name.size() + call.arguments.size();
  }
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes / 4));
}

// The turn's calls with generated ids where the test left them empty.
std::vector<ToolCall> calls_with_ids(const FakeTurn& turn, std::string_view prefix,
                                     int& next_call_id) {
  std::vector<ToolCall> calls = turn.tool_calls;
  for (ToolCall& call : calls) {
    if (call.id.empty()) {
      call.id = std::string(prefix) + std::to_string(next_call_id++);
    }
  }
  return calls;
}

std::string data_event(const Json& payload) {
  return "data: " + payload.dump() + "\n\n";
}

std::string named_event(std::string_view name, const Json& payload) {
  return "event: " + std::string(name) + "\ndata: " + payload.dump() + "\n\n";
}

bool is_http_error(Fault fault) {
  switch (fault) {
  case Fault::http_401:
  case Fault::http_429:
  case Fault::http_429_quota:
  case Fault::http_500:
  case Fault::http_529:
  case Fault::http_502_html:
  case Fault::custom_error:
    return true;
  default:
    return false;
  }
}

// Error bodies in each API's shape (§1.8 and §3.9).
Json openai_error(std::string message, std::string type, Json code) {
  return Json{{"error",
               {{"message", std::move(message)},
                {"type", std::move(type)},
                {"param", nullptr},
                {"code", std::move(code)}}}};
}

Json anthropic_error(std::string type, std::string message, const std::string& request_id) {
  return Json{{"type", "error"},
              {"error", {{"type", std::move(type)}, {"message", std::move(message)}}},
              {"request_id", request_id}};
}

std::string request_id(const WireRequest& request) {
  return "req_fake_" + std::to_string(request.number);
}

WireAnswer error_answer(const FakeTurn& turn, const WireRequest& request, bool anthropic) {
  WireAnswer answer;
  const std::string id = request_id(request);
  Json body;
  switch (turn.fault) {
  case Fault::http_401:
    answer.status = 401;
    body = anthropic ? anthropic_error("authentication_error",
                                       "invalid x-api-key: " + request.api_key, id)
                     : openai_error("Incorrect API key provided: " + request.api_key +
                                        ". You can find your API key at "
                                        "https://platform.openai.com/account/api-keys.",
                                    "invalid_request_error", "invalid_api_key");
    break;
  case Fault::http_429:
    answer.status = 429;
    body = anthropic
               ? anthropic_error("rate_limit_error",
                                 "Number of request tokens has exceeded your per-minute rate limit",
                                 id)
               : openai_error("Rate limit reached for requests per min (RPM): Limit 3, Used 3, "
                              "Requested 1.",
                              "requests", "rate_limit_exceeded");
    break;
  case Fault::http_429_quota:
    answer.status = 429;
    body = openai_error("You exceeded your current quota, please check your plan and billing "
                        "details.",
                        "insufficient_quota", "insufficient_quota");
    break;
  case Fault::http_500:
    answer.status = 500;
    body = anthropic ? anthropic_error("api_error", "Internal server error", id)
                     : openai_error("The server had an error while processing your request. "
                                    "Sorry about that!",
                                    "server_error", nullptr);
    break;
  case Fault::http_529:
    answer.status = 529;
    body = anthropic ? anthropic_error("overloaded_error", "Overloaded", id)
                     : openai_error("Overloaded", "overloaded_error", nullptr);
    break;
  case Fault::http_502_html:
    answer.status = 502;
    answer.content_type = "text/html";
    answer.writes.push_back("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
                            "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx"
                            "</center>\r\n</body>\r\n</html>\r\n");
    break;
  default: // custom_error
    answer.status = turn.status;
    answer.writes.push_back(turn.error_body);
    break;
  }
  if (answer.writes.empty()) {
    answer.writes.push_back(body.dump());
  }
  return answer;
}

// Turns a complete answer into the one the fault asks for. `cut` is where a stream breaks: after
// some content, before any terminal marker. `broken` is one malformed event, `error_event` the
// error the server reports mid-stream (plus what follows it).
void apply_stream_fault(WireAnswer& answer, Fault fault, std::size_t cut, const std::string& broken,
                        const std::vector<std::string>& error_events) {
  auto& writes = answer.writes;
  switch (fault) {
  case Fault::malformed_json:
    writes.insert(writes.begin() + static_cast<std::ptrdiff_t>(cut), broken);
    break;
  case Fault::drop_mid_stream:
    writes.resize(cut);
    answer.ending = WireAnswer::Ending::drop;
    break;
  case Fault::stall_mid_stream:
    writes.resize(cut);
    answer.ending = WireAnswer::Ending::stall;
    break;
  case Fault::mid_stream_error:
  case Fault::llama_error_field:
    writes.resize(cut);
    writes.insert(writes.end(), error_events.begin(), error_events.end());
    break;
  default:
    break;
  }
}

// The same for a non-streaming body.
void apply_body_fault(WireAnswer& answer, Fault fault, const Json& error_body) {
  std::string& body = answer.writes.front();
  switch (fault) {
  case Fault::malformed_json:
    body.resize(body.size() / 2);
    break;
  case Fault::drop_mid_stream:
  case Fault::stall_mid_stream:
    body.resize(body.size() / 2);
    answer.chunked = true;
    answer.ending =
        fault == Fault::drop_mid_stream ? WireAnswer::Ending::drop : WireAnswer::Ending::stall;
    break;
  case Fault::mid_stream_error:
  case Fault::llama_error_field:
    body = error_body.dump();
    break;
  default:
    break;
  }
}

std::size_t cut_point(const std::vector<std::string>& writes, std::size_t first_content) {
  return std::clamp<std::size_t>(writes.size() / 2, first_content + 1, writes.size() - 1);
}

// ---- OpenAI Chat Completions (§1.3, §1.4, §4) ----

Json openai_usage(const FakeTurn& turn, const WireRequest& request) {
  const std::int64_t prompt = prompt_tokens(request);
  const std::int64_t completion = completion_tokens(turn);
  return Json{{"prompt_tokens", prompt},
              {"completion_tokens", completion},
              {"total_tokens", prompt + completion},
              {"prompt_tokens_details", {{"cached_tokens", 0}}},
              {"completion_tokens_details",
               {{"reasoning_tokens", static_cast<std::int64_t>(turn.thinking.size() / 4)}}}};
}

Json llama_timings(const FakeTurn& turn, const WireRequest& request) {
  return Json{{"cache_n", 0},
              {"prompt_n", prompt_tokens(request)},
              {"prompt_ms", 1.5},
              {"predicted_n", completion_tokens(turn)},
              {"predicted_ms", 2.5}};
}

std::string openai_finish_reason(const FakeTurn& turn) {
  if (!turn.stop_reason.empty()) {
    return turn.stop_reason;
  }
  return turn.tool_calls.empty() ? "stop" : "tool_calls";
}

const char* reasoning_field(OpenAiFlavor flavor) {
  return flavor == OpenAiFlavor::ollama ? "reasoning" : "reasoning_content";
}

class OpenAiChunks {
public:
  explicit OpenAiChunks(const WireRequest& request)
      : m_request(request), m_id("chatcmpl-fake-" + std::to_string(request.number)) {}

  Json chunk(Json choices) const {
    Json chunk{{"id", m_id},
               {"object", "chat.completion.chunk"},
               {"created", k_created},
               {"model", m_request.model},
               {"system_fingerprint", "fp_fake"},
               {"choices", std::move(choices)}};
    if (m_request.include_usage) {
      chunk["usage"] = nullptr;
    }
    return chunk;
  }

  std::string delta(Json delta) const {
    return data_event(chunk(Json::array({Json{{"index", 0},
                                              {"delta", std::move(delta)},
                                              {"logprobs", nullptr},
                                              {"finish_reason", nullptr}}})));
  }

  const std::string& id() const { return m_id; }

private:
  const WireRequest& m_request;
  std::string m_id;
};

Json openai_tool_call(const ToolCall& call, int index, std::string arguments) {
  return Json{{"index", index},
              {"id", call.id},
              {"type", "function"},
              {"function", {{"name", call.name}, {"arguments", std::move(arguments)}}}};
}

WireAnswer openai_stream(const FakeTurn& turn, const WireRequest& request, OpenAiFlavor flavor,
                         const std::vector<ToolCall>& calls) {
  const OpenAiChunks chunks(request);
  WireAnswer answer;
  answer.content_type = "text/event-stream";
  answer.chunked = true;
  auto& writes = answer.writes;
  if (flavor == OpenAiFlavor::llama_cpp) {
    writes.push_back(":\n\n"); // keep-alive while "processing the prompt"
  }
  writes.push_back(
      chunks.delta({{"role", "assistant"},
                    {"content", flavor == OpenAiFlavor::llama_cpp ? Json(nullptr) : Json("")}}));
  const std::size_t first_content = writes.size();
  for (const std::string& piece : pieces(turn.thinking)) {
    writes.push_back(chunks.delta({{reasoning_field(flavor), piece}}));
  }
  for (const std::string& piece : pieces(turn.text)) {
    writes.push_back(chunks.delta({{"content", piece}}));
  }
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const ToolCall& call = calls[i];
    if (flavor == OpenAiFlavor::ollama) {
      // Whole call in one chunk, and (old Ollama) index 0 for every call of the batch.
      writes.push_back(
          chunks.delta({{"tool_calls", Json::array({openai_tool_call(call, 0, call.arguments)})}}));
      continue;
    }
    const int index = static_cast<int>(i);
    writes.push_back(
        chunks.delta({{"tool_calls", Json::array({openai_tool_call(call, index, "")})}}));
    for (const std::string& piece : pieces(call.arguments)) {
      writes.push_back(chunks.delta(
          {{"tool_calls",
            Json::array({Json{{"index", index}, {"function", {{"arguments", piece}}}}})}}));
    }
  }
  if (flavor == OpenAiFlavor::llama_cpp) {
    writes.push_back(":\n\n");
  }
  Json finish = chunks.chunk(Json::array({Json{{"index", 0},
                                               {"delta", Json::object()},
                                               {"logprobs", nullptr},
                                               {"finish_reason", openai_finish_reason(turn)}}}));
  if (flavor == OpenAiFlavor::llama_cpp && !turn.no_usage) {
    finish["usage"] = openai_usage(turn, request); // old llama.cpp: on the finish chunk
    finish["timings"] = llama_timings(turn, request);
  }
  writes.push_back(data_event(finish));
  if (request.include_usage && flavor != OpenAiFlavor::llama_cpp && !turn.no_usage) {
    Json usage = chunks.chunk(Json::array());
    usage["usage"] = openai_usage(turn, request);
    writes.push_back(data_event(usage));
  }
  writes.push_back("data: [DONE]\n\n");

  const std::string broken = "data: {\"id\":\"" + chunks.id() +
                             "\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                             "\"delta\":{\"content\":\"oops\"}\n\n";
  std::vector<std::string> error_events;
  if (turn.fault == Fault::llama_error_field) {
    error_events.push_back(
        "error: {\"code\":500,\"message\":\"slot unavailable\",\"type\":\"server_error\"}\n\n");
  } else {
    error_events.push_back(data_event(
        openai_error("The server had an error while processing your request. Sorry about that!",
                     "server_error", nullptr)));
  }
  error_events.push_back("data: [DONE]\n\n");
  apply_stream_fault(answer, turn.fault, cut_point(writes, first_content), broken, error_events);
  return answer;
}

WireAnswer openai_body(const FakeTurn& turn, const WireRequest& request, OpenAiFlavor flavor,
                       const std::vector<ToolCall>& calls) {
  Json message{{"role", "assistant"},
               {"content", turn.text.empty() && !calls.empty() ? Json(nullptr) : Json(turn.text)},
               {"refusal", nullptr}};
  if (!turn.thinking.empty()) {
    message[reasoning_field(flavor)] = turn.thinking;
  }
  if (!calls.empty()) {
    Json tool_calls = Json::array();
    for (const ToolCall& call : calls) {
      Json entry = openai_tool_call(call, 0, call.arguments);
      entry.erase("index"); // only stream fragments carry an index
      tool_calls.push_back(std::move(entry));
    }
    message["tool_calls"] = std::move(tool_calls);
  }
  Json body{{"id", "chatcmpl-fake-" + std::to_string(request.number)},
            {"object", "chat.completion"},
            {"created", k_created},
            {"model", request.model},
            {"choices", Json::array({Json{{"index", 0},
                                          {"message", std::move(message)},
                                          {"logprobs", nullptr},
                                          {"finish_reason", openai_finish_reason(turn)}}})},
            {"usage", openai_usage(turn, request)},
            {"system_fingerprint", "fp_fake"}};
  if (turn.no_usage) {
    body.erase("usage");
  }
  WireAnswer answer;
  answer.writes.push_back(body.dump());
  apply_body_fault(answer, turn.fault,
                   openai_error("The server had an error while processing your request.",
                                "server_error", nullptr));
  return answer;
}

// ---- Anthropic Messages (§3.4, §3.5) ----

std::string signature_for(const std::string& thinking) {
  return "EqQBfakeSig" + std::to_string(std::hash<std::string>{}(thinking) % 1000000007) + "==";
}

std::string anthropic_stop_reason(const FakeTurn& turn) {
  if (!turn.stop_reason.empty()) {
    return turn.stop_reason;
  }
  return turn.tool_calls.empty() ? "end_turn" : "tool_use";
}

Json anthropic_usage(const FakeTurn& turn, const WireRequest& request, bool start) {
  return Json{{"input_tokens", prompt_tokens(request)},
              {"cache_creation_input_tokens", 0},
              {"cache_read_input_tokens", 0},
              {"output_tokens", start ? 1 : completion_tokens(turn)}};
}

Json tool_input(const std::string& arguments) {
  Json input = Json::parse(arguments, nullptr, false);
  return input.is_object() ? input : Json::object();
}

WireAnswer anthropic_stream(const FakeTurn& turn, const WireRequest& request,
                            const std::vector<ToolCall>& calls) {
  WireAnswer answer;
  answer.content_type = "text/event-stream";
  answer.chunked = true;
  auto& writes = answer.writes;
  const std::string message_id = "msg_fake_" + std::to_string(request.number);
  writes.push_back(
      named_event("message_start", {{"type", "message_start"},
                                    {"message",
                                     {{"id", message_id},
                                      {"type", "message"},
                                      {"role", "assistant"},
                                      {"model", request.model},
                                      {"content", Json::array()},
                                      {"stop_reason", nullptr},
                                      {"stop_sequence", nullptr},
                                      {"usage", anthropic_usage(turn, request, true)}}}}));
  const std::size_t first_content = writes.size();
  int index = 0;
  const auto start = [&](Json block) {
    writes.push_back(named_event(
        "content_block_start",
        {{"type", "content_block_start"}, {"index", index}, {"content_block", std::move(block)}}));
  };
  const auto delta = [&](Json body) {
    writes.push_back(named_event(
        "content_block_delta",
        {{"type", "content_block_delta"}, {"index", index}, {"delta", std::move(body)}}));
  };
  const auto stop = [&] {
    writes.push_back(
        named_event("content_block_stop", {{"type", "content_block_stop"}, {"index", index}}));
    ++index;
  };
  if (!turn.thinking.empty()) {
    start({{"type", "thinking"}, {"thinking", ""}, {"signature", ""}});
    for (const std::string& piece : pieces(turn.thinking)) {
      delta({{"type", "thinking_delta"}, {"thinking", piece}});
    }
    delta({{"type", "signature_delta"}, {"signature", signature_for(turn.thinking)}});
    stop();
  }
  writes.push_back(named_event("ping", {{"type", "ping"}}));
  if (!turn.text.empty()) {
    start({{"type", "text"}, {"text", ""}});
    for (const std::string& piece : pieces(turn.text)) {
      delta({{"type", "text_delta"}, {"text", piece}});
    }
    stop();
  }
  for (const ToolCall& call : calls) {
    start({{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", Json::object()}});
    delta({{"type", "input_json_delta"}, {"partial_json", ""}});
    for (const std::string& piece : pieces(call.arguments)) {
      delta({{"type", "input_json_delta"}, {"partial_json", piece}});
    }
    stop();
  }
  writes.push_back(named_event(
      "message_delta",
      {{"type", "message_delta"},
       {"delta", {{"stop_reason", anthropic_stop_reason(turn)}, {"stop_sequence", nullptr}}},
       {"usage", {{"output_tokens", completion_tokens(turn)}}}}));
  writes.push_back(named_event("message_stop", {{"type", "message_stop"}}));

  const std::string broken = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
                             "\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"oops\"\n\n";
  const std::vector<std::string> error_events = {
      named_event("error", {{"type", "error"},
                            {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}})};
  apply_stream_fault(answer, turn.fault, cut_point(writes, first_content), broken, error_events);
  return answer;
}

WireAnswer anthropic_body(const FakeTurn& turn, const WireRequest& request,
                          const std::vector<ToolCall>& calls) {
  Json content = Json::array();
  if (!turn.thinking.empty()) {
    content.push_back({{"type", "thinking"},
                       {"thinking", turn.thinking},
                       {"signature", signature_for(turn.thinking)}});
  }
  if (!turn.text.empty()) {
    content.push_back({{"type", "text"}, {"text", turn.text}});
  }
  for (const ToolCall& call : calls) {
    content.push_back({{"type", "tool_use"},
                       {"id", call.id},
                       {"name", call.name},
                       {"input", tool_input(call.arguments)}});
  }
  Json usage = anthropic_usage(turn, request, false);
  usage["service_tier"] = "standard";
  const Json body{{"id", "msg_fake_" + std::to_string(request.number)},
                  {"type", "message"},
                  {"role", "assistant"},
                  {"model", request.model},
                  {"content", std::move(content)},
                  {"stop_reason", anthropic_stop_reason(turn)},
                  {"stop_sequence", nullptr},
                  {"usage", std::move(usage)}};
  WireAnswer answer;
  answer.writes.push_back(body.dump());
  apply_body_fault(answer, turn.fault,
                   anthropic_error("overloaded_error", "Overloaded", request_id(request)));
  return answer;
}

// ---- OpenAI Responses (§2) ----

// What the turn's stop_reason says about the response's end: status and incomplete reason.
struct ResponsesEnd {
  std::string status = "completed";
  std::string reason; // incomplete_details.reason
};

ResponsesEnd responses_end(const FakeTurn& turn) {
  ResponsesEnd end;
  if (turn.stop_reason.empty()) {
    return end;
  }
  if (turn.stop_reason == "failed") {
    end.status = "failed";
    return end;
  }
  end.status = "incomplete";
  end.reason = turn.stop_reason == "length" ? "max_output_tokens" : turn.stop_reason;
  return end;
}

Json responses_usage(const FakeTurn& turn, const WireRequest& request) {
  const std::int64_t input = prompt_tokens(request);
  const std::int64_t output = completion_tokens(turn);
  return Json{{"input_tokens", input},
              {"input_tokens_details",
               {{"cached_tokens", std::min<std::int64_t>(turn.cached_tokens, input)}}},
              {"output_tokens", output},
              {"output_tokens_details",
               {{"reasoning_tokens", static_cast<std::int64_t>(turn.thinking.size() / 4)}}},
              {"total_tokens", input + output}};
}

Json responses_server_error() {
  return Json{{"code", "server_error"},
              {"message", "The server had an error while processing your request. Sorry about "
                          "that!"}};
}

// The response object: the body of a non-streaming answer and of the stream's lifecycle events.
Json responses_object(const FakeTurn& turn, const WireRequest& request, std::string_view status,
                      Json output) {
  const ResponsesEnd end = responses_end(turn);
  const bool final = status != "in_progress";
  Json body{{"id", "resp_fake_" + std::to_string(request.number)},
            {"object", "response"},
            {"created_at", k_created},
            {"status", std::string(status)},
            {"error", final && status == "failed" ? responses_server_error() : Json(nullptr)},
            {"incomplete_details",
             final && !end.reason.empty() ? Json{{"reason", end.reason}} : Json(nullptr)},
            {"model", request.model},
            {"output", std::move(output)},
            {"parallel_tool_calls", true},
            {"store", false},
            {"usage", final && !turn.no_usage ? responses_usage(turn, request) : Json(nullptr)}};
  return body;
}

Json responses_text_part(const std::string& text) {
  return Json{{"type", "output_text"}, {"text", text}, {"annotations", Json::array()}};
}

// The output items of the turn, complete: reasoning, message, function calls (in that order).
Json responses_items(const FakeTurn& turn, const WireRequest& request,
                     const std::vector<ToolCall>& calls) {
  const std::string n = std::to_string(request.number);
  Json items = Json::array();
  if (!turn.thinking.empty()) {
    items.push_back(
        {{"type", "reasoning"},
         {"id", "rs_fake_" + n},
         {"summary", Json::array({{{"type", "summary_text"}, {"text", turn.thinking}}})}});
  }
  if (!turn.text.empty()) {
    items.push_back({{"type", "message"},
                     {"id", "msg_fake_" + n},
                     {"status", "completed"},
                     {"role", "assistant"},
                     {"content", Json::array({responses_text_part(turn.text)})}});
  }
  for (std::size_t i = 0; i < calls.size(); ++i) {
    items.push_back({{"type", "function_call"},
                     {"id", "fc_fake_" + n + "_" + std::to_string(i)},
                     {"call_id", calls[i].id},
                     {"name", calls[i].name},
                     {"arguments", calls[i].arguments},
                     {"status", "completed"}});
  }
  return items;
}

class ResponsesEvents {
public:
  ResponsesEvents(std::vector<std::string>& writes, int first_sequence)
      : m_writes(writes), m_sequence(first_sequence) {}

  void add(const char* type, Json fields) {
    Json payload{{"type", type}, {"sequence_number", m_sequence++}};
    for (auto& [key, value] : fields.items()) {
      payload[key] = std::move(value);
    }
    m_writes.push_back(named_event(type, payload));
  }
  int next_sequence() const { return m_sequence; }

private:
  std::vector<std::string>& m_writes;
  int m_sequence;
};

WireAnswer responses_stream(const FakeTurn& turn, const WireRequest& request,
                            const std::vector<ToolCall>& calls) {
  WireAnswer answer;
  answer.content_type = "text/event-stream";
  answer.chunked = true;
  ResponsesEvents events(answer.writes, 0);
  const Json empty = Json::array();
  events.add("response.created",
             {{"response", responses_object(turn, request, "in_progress", empty)}});
  events.add("response.in_progress",
             {{"response", responses_object(turn, request, "in_progress", empty)}});
  const std::size_t first_content = answer.writes.size();
  const Json items = responses_items(turn, request, calls);
  for (std::size_t index = 0; index < items.size(); ++index) {
    const Json& item = items[index];
    const std::string type = item["type"];
    const std::string id = item["id"];
    Json added = item;
    const Json at{{"item_id", id}, {"output_index", index}};
    const auto with = [&at](Json fields) {
      for (const auto& [key, value] : at.items()) {
        fields[key] = value;
      }
      return fields;
    };
    if (type == "reasoning") {
      added["summary"] = Json::array();
      events.add("response.output_item.added", {{"output_index", index}, {"item", added}});
      const Json part{{"type", "summary_text"}, {"text", ""}};
      events.add("response.reasoning_summary_part.added",
                 with({{"summary_index", 0}, {"part", part}}));
      for (const std::string& piece : pieces(turn.thinking)) {
        events.add("response.reasoning_summary_text.delta",
                   with({{"summary_index", 0}, {"delta", piece}}));
      }
      events.add("response.reasoning_summary_text.done",
                 with({{"summary_index", 0}, {"text", turn.thinking}}));
      events.add("response.reasoning_summary_part.done",
                 with({{"summary_index", 0}, {"part", item["summary"][0]}}));
    } else if (type == "message") {
      added["status"] = "in_progress";
      added["content"] = Json::array();
      events.add("response.output_item.added", {{"output_index", index}, {"item", added}});
      events.add("response.content_part.added",
                 with({{"content_index", 0}, {"part", responses_text_part("")}}));
      for (const std::string& piece : pieces(turn.text)) {
        events.add("response.output_text.delta",
                   with({{"content_index", 0}, {"delta", piece}, {"logprobs", Json::array()}}));
      }
      events.add("response.output_text.done",
                 with({{"content_index", 0}, {"text", turn.text}, {"logprobs", Json::array()}}));
      events.add("response.content_part.done",
                 with({{"content_index", 0}, {"part", responses_text_part(turn.text)}}));
    } else {
      added["arguments"] = "";
      added["status"] = "in_progress";
      events.add("response.output_item.added", {{"output_index", index}, {"item", added}});
      const std::string arguments = item["arguments"];
      for (const std::string& piece : pieces(arguments)) {
        events.add("response.function_call_arguments.delta", with({{"delta", piece}}));
      }
      events.add("response.function_call_arguments.done",
                 with({{"name", item["name"]}, {"arguments", arguments}}));
    }
    events.add("response.output_item.done", {{"output_index", index}, {"item", item}});
  }
  const ResponsesEnd end = responses_end(turn);
  const std::string terminal =
      end.status == "completed" ? "response.completed" : "response." + end.status;
  events.add(terminal.c_str(), {{"response", responses_object(turn, request, end.status, items)}});

  const std::string broken =
      "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
      "\"sequence_number\":99,\"delta\":\"oops\"\n\n";
  // What the API sends when it fails mid-answer: an error event, then response.failed.
  std::vector<std::string> error_events;
  // Numbered after every event of the full stream: still increasing wherever the cut falls.
  ResponsesEvents failure(error_events, events.next_sequence());
  Json error = responses_server_error();
  error["param"] = nullptr;
  failure.add("error", error);
  FakeTurn failed = turn;
  failed.stop_reason = "failed";
  failure.add("response.failed",
              {{"response", responses_object(failed, request, "failed", Json::array())}});
  apply_stream_fault(answer, turn.fault, cut_point(answer.writes, first_content), broken,
                     error_events);
  return answer;
}

WireAnswer responses_body(const FakeTurn& turn, const WireRequest& request,
                          const std::vector<ToolCall>& calls) {
  const ResponsesEnd end = responses_end(turn);
  WireAnswer answer;
  answer.writes.push_back(
      responses_object(turn, request, end.status, responses_items(turn, request, calls)).dump());
  FakeTurn failed = turn;
  failed.stop_reason = "failed";
  apply_body_fault(answer, turn.fault, responses_object(failed, request, "failed", Json::array()));
  return answer;
}

void add_common_headers(WireAnswer& answer, const FakeTurn& turn, const WireRequest& request,
                        bool anthropic) {
  answer.headers.emplace_back(anthropic ? "request-id" : "x-request-id", request_id(request));
  if (turn.retry_after_ms >= 0) {
    answer.headers.emplace_back("retry-after-ms", std::to_string(turn.retry_after_ms));
  }
  if (!turn.retry_after.empty()) {
    answer.headers.emplace_back("retry-after", turn.retry_after);
  }
  for (const auto& [name, value] : turn.headers) {
    answer.headers.emplace_back(name, value);
  }
}

} // namespace

WireAnswer openai_answer(const FakeTurn& turn, const WireRequest& request, OpenAiFlavor flavor,
                         int& next_call_id) {
  WireAnswer answer;
  if (is_http_error(turn.fault)) {
    answer = error_answer(turn, request, false);
  } else {
    const auto calls = calls_with_ids(turn, "call_fake_", next_call_id);
    answer = request.stream ? openai_stream(turn, request, flavor, calls)
                            : openai_body(turn, request, flavor, calls);
  }
  add_common_headers(answer, turn, request, false);
  return answer;
}

WireAnswer anthropic_answer(const FakeTurn& turn, const WireRequest& request, int& next_call_id) {
  WireAnswer answer;
  if (is_http_error(turn.fault)) {
    answer = error_answer(turn, request, true);
  } else {
    const auto calls = calls_with_ids(turn, "toolu_fake_", next_call_id);
    answer = request.stream ? anthropic_stream(turn, request, calls)
                            : anthropic_body(turn, request, calls);
  }
  add_common_headers(answer, turn, request, true);
  return answer;
}

WireAnswer responses_answer(const FakeTurn& turn, const WireRequest& request, int& next_call_id) {
  WireAnswer answer;
  if (is_http_error(turn.fault)) {
    answer = error_answer(turn, request, false);
  } else {
    const auto calls = calls_with_ids(turn, "call_fake_", next_call_id);
    answer = request.stream ? responses_stream(turn, request, calls)
                            : responses_body(turn, request, calls);
  }
  add_common_headers(answer, turn, request, false);
  return answer;
}

WireAnswer harness_error(bool anthropic, const std::string& message) {
  WireAnswer answer;
  answer.status = 500;
  answer.writes.push_back(anthropic
                              ? anthropic_error("api_error", message, "req_fake_harness").dump()
                              : openai_error(message, "fake_provider_error", nullptr).dump());
  answer.headers.emplace_back("x-should-retry", "false");
  return answer;
}

} // namespace ralph::testing
