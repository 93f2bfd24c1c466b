#include "llm/openai_stream.h"

#include "llm/json_fields.h"
#include "llm/openai_response.h"
#include "llm/provider_error.h"

#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::llm {

OpenAiStreamReader::OpenAiStreamReader(std::string_view provider, std::string_view secret,
                                       StreamObserver* observer)
    : m_provider(provider), m_secret(secret), m_observer(observer) {
  begin();
}

void OpenAiStreamReader::begin() {
  m_decoder.emplace([this](const http::SseEvent& event) { on_event(event); });
  m_response = ChatResponse{};
  m_response.message.role = Role::assistant;
  m_thinking.clear();
  m_call_index.clear();
  m_call_announced.clear();
  m_finished = false;
  m_done = false;
  m_failure.reset();
}

bool OpenAiStreamReader::feed(std::string_view bytes) {
  if (!m_failure && !m_done) {
    m_decoder->feed(bytes);
  }
  return !m_failure;
}

void OpenAiStreamReader::on_event(const http::SseEvent& event) {
  if (m_failure || m_done) {
    return;
  }
  // [DONE] is not JSON; the OpenAI SDK ends at any payload starting with it.
  if (event.data.compare(0, 6, "[DONE]") == 0) {
    m_done = true;
    return;
  }
  // Non-compliant gateways send keep-alives as `data: : ping`.
  if (event.data.front() == ':') {
    return;
  }
  auto chunk = parse_json(event.data, fmt::format("{}: stream chunk", m_provider));
  if (!chunk) {
    m_failure = chunk.error();
    if (event.event == "error") {
      m_failure = payload_error(m_provider, nlohmann::json{{"message", event.data}}, m_secret);
    }
    return;
  }
  // Old llama.cpp writes `error: {...}` (surfaced as event "error"); everyone else sends a data
  // payload with an "error" member.
  const nlohmann::json* error = member(*chunk, "error");
  if (event.event == "error" || (error != nullptr && !error->is_null())) {
    m_failure = payload_error(m_provider, *chunk, m_secret);
    return;
  }
  on_chunk(*chunk);
}

void OpenAiStreamReader::on_chunk(const nlohmann::json& chunk) {
  if (m_response.model.empty()) {
    m_response.model = string_member(chunk, "model");
  }
  // Null on every chunk but the last (include_usage), or on the finish chunk (old llama.cpp).
  const nlohmann::json* usage = member(chunk, "usage");
  if (usage != nullptr && usage->is_object()) {
    m_response.usage = openai_usage(*usage);
  }
  const nlohmann::json* choices = member(chunk, "choices");
  if (choices == nullptr || !choices->is_array()) {
    return;
  }
  for (const nlohmann::json& choice : *choices) {
    if (int_member(choice, "index").value_or(0) != 0) {
      continue; // ralph never asks for n > 1
    }
    if (const nlohmann::json* delta = member(choice, "delta")) {
      on_delta(*delta);
    }
    const std::string_view finish_reason = string_member(choice, "finish_reason");
    if (!finish_reason.empty()) {
      m_finished = true;
      m_response.raw_stop_reason = finish_reason;
    }
  }
}

void OpenAiStreamReader::on_delta(const nlohmann::json& delta) {
  std::string_view reasoning = string_member(delta, "reasoning_content");
  if (reasoning.empty()) {
    reasoning = string_member(delta, "reasoning");
  }
  if (!reasoning.empty()) {
    m_thinking.append(reasoning);
    if (m_observer != nullptr) {
      m_observer->on_thinking(reasoning);
    }
  }
  const std::string_view content = string_member(delta, "content");
  if (!content.empty()) {
    m_response.message.content.append(content);
    if (m_observer != nullptr) {
      m_observer->on_text(content);
    }
  }
  const nlohmann::json* calls = member(delta, "tool_calls");
  if (calls != nullptr && calls->is_array()) {
    std::int64_t position = 0;
    for (const nlohmann::json& fragment : *calls) {
      on_tool_fragment(fragment, position++);
    }
  }
}

void OpenAiStreamReader::on_tool_fragment(const nlohmann::json& fragment, std::int64_t position) {
  const std::int64_t index = int_member(fragment, "index").value_or(position);
  const std::string_view id = string_member(fragment, "id");
  auto& calls = m_response.message.tool_calls;
  // The latest call at this index, unless a different non-empty id says a new call started
  // (old Ollama reuses index 0 for every call of a parallel batch).
  std::size_t slot = calls.size();
  for (std::size_t i = calls.size(); i-- > 0;) {
    if (m_call_index[i] == index) {
      if (id.empty() || calls[i].id.empty() || calls[i].id == id) {
        slot = i;
      }
      break;
    }
  }
  if (slot == calls.size()) {
    calls.emplace_back();
    m_call_index.push_back(index);
    m_call_announced.push_back(false);
  }
  ToolCall& call = calls[slot];
  if (!id.empty()) {
    call.id = id;
  }
  if (const nlohmann::json* function = member(fragment, "function")) {
    const std::string_view name = string_member(*function, "name");
    if (!name.empty()) {
      call.name = name;
    }
    call.arguments.append(string_member(*function, "arguments"));
  }
  if (!m_call_announced[slot] && !call.name.empty()) {
    m_call_announced[slot] = true;
    if (m_observer != nullptr) {
      m_observer->on_tool_call(call);
    }
  }
}

Result<ChatResponse> OpenAiStreamReader::finish(const http::Response&) {
  if (m_failure) {
    return fail(*m_failure);
  }
  if (!m_done && (!m_finished || m_decoder->has_partial_event())) {
    Error error;
    error.kind = ErrorKind::network;
    error.retryable = true;
    error.message = fmt::format("{}: stream ended before [DONE] (truncated)", m_provider);
    return fail(std::move(error));
  }
  ChatResponse out = std::move(m_response);
  if (!m_thinking.empty()) {
    out.message.thinking.push_back(ThinkingBlock{std::move(m_thinking), {}, false, {}});
  }
  complete_tool_calls(out.message.tool_calls);
  out.stop_reason = openai_stop_reason(out.raw_stop_reason);
  begin();
  return out;
}

} // namespace ralph::llm
