#include "llm/openai_stream.h"

#include "llm/json_reader.h"
#include "llm/openai_response.h"
#include "llm/provider_error.h"

#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::llm {
namespace {

void read_usage(JsonReader& reader, Usage& usage) {
  std::string_view key;
  while (reader.next_key(key)) {
    if (key == "prompt_tokens") {
      usage.input_tokens = reader.read_int().value_or(0);
    } else if (key == "completion_tokens") {
      usage.output_tokens = reader.read_int().value_or(0);
    } else if (key == "prompt_tokens_details") {
      std::string_view inner;
      const bool object = reader.enter_object();
      while (object && reader.next_key(inner)) {
        if (inner == "cached_tokens") {
          usage.cache_read_tokens = reader.read_int().value_or(0);
        } else {
          reader.skip();
        }
      }
    } else {
      reader.skip();
    }
  }
}

void read_into(JsonReader& reader, std::string& out) {
  std::string_view value;
  if (reader.read_string(value)) {
    out.append(value);
  }
}

} // namespace

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
  // Errors are rare: they get a full parse. Old llama.cpp writes `error: {...}` (surfaced as
  // event "error"); everyone else sends a data payload with an "error" member.
  const bool parsed = event.event != "error" && read_chunk(event.data);
  if (parsed && !m_chunk.error) {
    apply_chunk();
    return;
  }
  auto payload = parse_json(event.data, "stream chunk");
  if (event.event == "error") {
    m_failure = payload_error(
        m_provider, payload ? *payload : nlohmann::json{{"message", event.data}}, m_secret);
  } else if (!payload) {
    m_failure = payload.error();
    add_provider_prefix(*m_failure, m_provider);
  } else {
    m_failure = payload_error(m_provider, *payload, m_secret);
  }
}

bool OpenAiStreamReader::read_chunk(std::string_view data) {
  Chunk& chunk = m_chunk;
  chunk.error = false;
  chunk.model.clear();
  chunk.content.clear();
  chunk.reasoning_content.clear();
  chunk.reasoning.clear();
  chunk.finish_reason.clear();
  chunk.usage.reset();
  chunk.fragment_count = 0;

  JsonReader reader(data);
  if (reader.enter_object()) {
    std::string_view key;
    while (reader.next_key(key)) {
      if (key == "choices") {
        const bool array = reader.enter_array();
        while (array && reader.next_element()) {
          read_choice(reader);
        }
      } else if (key == "model") {
        read_into(reader, chunk.model);
      } else if (key == "usage") {
        // Null on every chunk but the last (include_usage), or on the finish chunk (llama.cpp).
        if (reader.enter_object()) {
          read_usage(reader, chunk.usage.emplace());
        }
      } else if (key == "error") {
        chunk.error = reader.peek() != JsonReader::Kind::literal; // null means no error
        reader.skip();
      } else {
        reader.skip();
      }
    }
  }
  return reader.finish();
}

void OpenAiStreamReader::read_choice(JsonReader& reader) {
  Chunk& chunk = m_chunk;
  // ralph never asks for n > 1: a choice with another index is read and then dropped.
  const std::size_t content = chunk.content.size();
  const std::size_t reasoning_content = chunk.reasoning_content.size();
  const std::size_t reasoning = chunk.reasoning.size();
  const std::size_t fragments = chunk.fragment_count;
  const std::string finish_reason = chunk.finish_reason;
  std::int64_t index = 0;
  if (reader.enter_object()) {
    std::string_view key;
    while (reader.next_key(key)) {
      if (key == "index") {
        index = reader.read_int().value_or(0);
      } else if (key == "delta") {
        if (reader.enter_object()) {
          read_delta(reader);
        }
      } else if (key == "finish_reason") {
        std::string_view value;
        if (reader.read_string(value) && !value.empty()) {
          chunk.finish_reason = value;
        }
      } else {
        reader.skip();
      }
    }
  }
  if (index != 0) {
    chunk.content.resize(content);
    chunk.reasoning_content.resize(reasoning_content);
    chunk.reasoning.resize(reasoning);
    chunk.fragment_count = fragments;
    chunk.finish_reason = finish_reason;
  }
}

void OpenAiStreamReader::read_delta(JsonReader& reader) {
  std::string_view key;
  while (reader.next_key(key)) {
    if (key == "content") {
      read_into(reader, m_chunk.content);
    } else if (key == "reasoning_content") {
      read_into(reader, m_chunk.reasoning_content);
    } else if (key == "reasoning") {
      read_into(reader, m_chunk.reasoning);
    } else if (key == "tool_calls") {
      const bool array = reader.enter_array();
      while (array && reader.next_element()) {
        read_fragment(reader);
      }
    } else {
      reader.skip();
    }
  }
}

void OpenAiStreamReader::read_fragment(JsonReader& reader) {
  auto& fragments = m_chunk.fragments;
  if (m_chunk.fragment_count == fragments.size()) {
    fragments.emplace_back();
  }
  Fragment& fragment = fragments[m_chunk.fragment_count++];
  fragment.index.reset();
  fragment.id.clear();
  fragment.name.clear();
  fragment.arguments.clear();
  if (!reader.enter_object()) {
    return;
  }
  std::string_view key;
  while (reader.next_key(key)) {
    if (key == "index") {
      fragment.index = reader.read_int();
    } else if (key == "id") {
      read_into(reader, fragment.id);
    } else if (key == "function") {
      std::string_view inner;
      const bool object = reader.enter_object();
      while (object && reader.next_key(inner)) {
        if (inner == "name") {
          read_into(reader, fragment.name);
        } else if (inner == "arguments") {
          read_into(reader, fragment.arguments);
        } else {
          reader.skip();
        }
      }
    } else {
      reader.skip();
    }
  }
}

void OpenAiStreamReader::apply_chunk() {
  const Chunk& chunk = m_chunk;
  if (m_response.model.empty()) {
    m_response.model = chunk.model;
  }
  if (chunk.usage) {
    m_response.usage = *chunk.usage;
  }
  const std::string& reasoning =
      chunk.reasoning_content.empty() ? chunk.reasoning : chunk.reasoning_content;
  if (!reasoning.empty()) {
    m_thinking.append(reasoning);
    if (m_observer != nullptr) {
      m_observer->on_thinking(reasoning);
    }
  }
  if (!chunk.content.empty()) {
    m_response.message.content.append(chunk.content);
    if (m_observer != nullptr) {
      m_observer->on_text(chunk.content);
    }
  }
  for (std::size_t i = 0; i < chunk.fragment_count; ++i) {
    on_tool_fragment(chunk.fragments[i], static_cast<std::int64_t>(i));
  }
  if (!chunk.finish_reason.empty()) {
    m_finished = true;
    m_response.raw_stop_reason = chunk.finish_reason;
  }
}

void OpenAiStreamReader::on_tool_fragment(const Fragment& fragment, std::int64_t position) {
  const std::int64_t index = fragment.index.value_or(position);
  const std::string& id = fragment.id;
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
  if (!fragment.name.empty()) {
    call.name = fragment.name;
  }
  call.arguments.append(fragment.arguments);
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
    out.message.thinking.push_back(ThinkingBlock{.thinking = std::move(m_thinking)});
  }
  complete_tool_calls(out.message.tool_calls);
  out.stop_reason = openai_stop_reason(out.raw_stop_reason);
  begin();
  return out;
}

} // namespace ralph::llm
