#include "llm/responses_stream.h"

#include "llm/json_reader.h"
#include "llm/provider_error.h"
#include "llm/responses_response.h"

#include "ralph/core/json.h"

#include <fmt/format.h>

namespace ralph::llm {
namespace {

bool is_terminal(std::string_view type) {
  return type == "response.completed" || type == "response.done" || type == "response.incomplete";
}

} // namespace

ResponsesStreamReader::ResponsesStreamReader(std::string_view provider, std::string_view secret,
                                             StreamObserver* observer)
    : m_provider(provider), m_secret(secret), m_observer(observer) {
  begin();
}

void ResponsesStreamReader::begin() {
  m_decoder.emplace([this](const http::SseEvent& event) { on_event(event); });
  m_text.clear();
  m_thinking.clear();
  m_items = nlohmann::json::array();
  m_terminal = nlohmann::json();
  m_done = false;
  m_failure.reset();
}

bool ResponsesStreamReader::feed(std::string_view bytes) {
  if (!m_failure && !m_done) {
    m_decoder->feed(bytes);
  }
  return !m_failure;
}

void ResponsesStreamReader::on_event(const http::SseEvent& event) {
  if (m_failure || m_done) {
    return;
  }
  // Not JSON: a `[DONE]` some gateways add, keep-alives sent as `data: : ping`.
  if (event.data.compare(0, 6, "[DONE]") == 0 || event.data.front() == ':') {
    return;
  }
  if (event.event != "error" && read_delta(event.data)) {
    return;
  }
  on_structured_event(event.event, event.data);
}

bool ResponsesStreamReader::read_delta(std::string_view data) {
  m_type.clear();
  m_delta.clear();
  JsonReader reader(data);
  if (reader.enter_object()) {
    std::string_view key;
    std::string_view value;
    while (reader.next_key(key)) {
      if (key == "type" && reader.read_string(value)) {
        m_type = value;
      } else if (key == "delta" && reader.read_string(value)) {
        m_delta = value;
      } else if (key != "type" && key != "delta") {
        reader.skip();
      }
    }
  }
  if (!reader.finish()) {
    return false; // malformed: the full parse reports it
  }
  if (m_type == "response.output_text.delta") {
    m_text.append(m_delta);
    if (m_observer != nullptr && !m_delta.empty()) {
      m_observer->on_text(m_delta);
    }
    return true;
  }
  if (m_type == "response.reasoning_summary_text.delta" ||
      m_type == "response.reasoning_text.delta") {
    m_thinking.append(m_delta);
    if (m_observer != nullptr && !m_delta.empty()) {
      m_observer->on_thinking(m_delta);
    }
    return true;
  }
  // Argument fragments add nothing the item's output_item.done does not repeat whole.
  return m_type == "response.function_call_arguments.delta";
}

void ResponsesStreamReader::on_structured_event(std::string_view event_name,
                                                std::string_view data) {
  auto parsed = parse_json(data, "stream event");
  if (!parsed) {
    if (event_name == "error") {
      fail_with(nlohmann::json{{"message", data}});
      return;
    }
    m_failure = parsed.error();
    add_provider_prefix(*m_failure, m_provider);
    return;
  }
  const nlohmann::json& payload = *parsed;
  const std::string_view type = string_member(payload, "type");
  if (type == "error" || (type.empty() && event_name == "error")) {
    fail_with(payload);
  } else if (type == "response.failed") {
    const nlohmann::json* response = member(payload, "response");
    auto result = read_responses_object(m_provider, m_secret,
                                        response != nullptr ? *response : nlohmann::json());
    m_failure = result ? Error{.kind = ErrorKind::provider,
                               .message = fmt::format("{}: response failed", m_provider)}
                       : result.error();
  } else if (type == "response.output_item.added") {
    const nlohmann::json* item = member(payload, "item");
    if (item != nullptr && string_member(*item, "type") == "function_call" &&
        m_observer != nullptr) {
      m_observer->on_tool_call(ToolCall{.id = std::string(string_member(*item, "call_id")),
                                        .name = std::string(string_member(*item, "name"))});
    }
  } else if (type == "response.output_item.done") {
    if (const nlohmann::json* item = member(payload, "item"); item != nullptr) {
      m_items.push_back(*item);
    }
  } else if (is_terminal(type)) {
    const nlohmann::json* response = member(payload, "response");
    m_terminal =
        response != nullptr && response->is_object() ? *response : nlohmann::json::object();
    m_done = true;
  }
}

void ResponsesStreamReader::fail_with(const nlohmann::json& payload) {
  m_failure = payload_error(m_provider, payload, m_secret);
}

Result<ChatResponse> ResponsesStreamReader::finish(const http::Response&) {
  if (m_failure) {
    return fail(*m_failure);
  }
  if (!m_done) {
    Error error;
    error.kind = ErrorKind::network;
    error.retryable = true;
    error.message =
        fmt::format("{}: stream ended before response.completed (truncated)", m_provider);
    return fail(std::move(error));
  }
  nlohmann::json& output = m_terminal["output"];
  const bool no_output = !output.is_array() || output.empty();
  if (no_output && !m_items.empty()) {
    output = std::move(m_items);
  } else if (no_output && (!m_text.empty() || !m_thinking.empty())) {
    output = nlohmann::json::array();
    if (!m_thinking.empty()) {
      output.push_back(
          {{"type", "reasoning"}, {"summary", {{{"type", "summary_text"}, {"text", m_thinking}}}}});
    }
    if (!m_text.empty()) {
      output.push_back(
          {{"type", "message"}, {"content", {{{"type", "output_text"}, {"text", m_text}}}}});
    }
  }
  auto out = read_responses_object(m_provider, m_secret, m_terminal);
  begin();
  return out;
}

} // namespace ralph::llm
