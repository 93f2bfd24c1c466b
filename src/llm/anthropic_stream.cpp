#include "llm/anthropic_stream.h"

#include "llm/json_reader.h"
#include "llm/provider_error.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

namespace ralph::llm {
namespace {

void read_into(JsonReader& reader, std::string& out) {
  std::string_view value;
  if (reader.read_string(value)) {
    out.assign(value);
  }
}

void read_count(JsonReader& reader, std::int64_t& out) {
  if (auto value = reader.read_int()) {
    out = *value;
  }
}

} // namespace

AnthropicStreamReader::AnthropicStreamReader(std::string_view secret, StreamObserver* observer)
    : m_secret(secret), m_observer(observer) {
  begin();
}

void AnthropicStreamReader::begin() {
  m_decoder.emplace([this](const http::SseEvent& event) { on_event(event); });
  m_blocks.clear();
  m_usage = AnthropicUsage{};
  m_model.clear();
  m_stop_reason.clear();
  m_done = false;
  m_failure.reset();
}

bool AnthropicStreamReader::feed(std::string_view bytes) {
  if (!m_failure && !m_done) {
    m_decoder->feed(bytes);
  }
  return !m_failure;
}

void AnthropicStreamReader::on_event(const http::SseEvent& event) {
  if (m_failure || m_done) {
    return;
  }
  // The JSON type decides; the `event:` line is only a cross-check, except that `event: error`
  // always aborts. Errors are rare: they get a full parse.
  if (event.event != "error" && read_event(event.data) && m_event.type != "error") {
    apply_event();
    return;
  }
  auto payload = parse_json(event.data, "anthropic: stream event");
  if (!payload) {
    m_failure = payload.error();
    return;
  }
  m_failure = payload_error("anthropic", *payload, m_secret);
}

bool AnthropicStreamReader::read_event(std::string_view data) {
  Event& event = m_event;
  event.type.clear();
  event.index = 0;
  event.model.clear();
  event.usage = m_usage;
  event.stop_reason.clear();
  event.block_type.clear();
  event.delta_type.clear();
  event.delta_text.clear();
  event.delta_signature.clear();

  JsonReader reader(data);
  std::string_view key;
  const bool object = reader.enter_object();
  while (object && reader.next_key(key)) {
    if (key == "type") {
      read_into(reader, event.type);
    } else if (key == "index") {
      read_count(reader, event.index);
    } else if (key == "message") {
      read_message(reader);
    } else if (key == "content_block") {
      read_block(reader);
    } else if (key == "delta") {
      read_delta(reader);
    } else if (key == "usage") {
      read_usage(reader);
    } else {
      reader.skip();
    }
  }
  return reader.finish();
}

void AnthropicStreamReader::read_usage(JsonReader& reader) {
  AnthropicUsage& usage = m_event.usage;
  std::string_view key;
  const bool object = reader.enter_object();
  while (object && reader.next_key(key)) {
    if (key == "input_tokens") {
      read_count(reader, usage.input);
    } else if (key == "cache_creation_input_tokens") {
      read_count(reader, usage.cache_creation);
    } else if (key == "cache_read_input_tokens") {
      read_count(reader, usage.cache_read);
    } else if (key == "output_tokens") {
      read_count(reader, usage.output);
    } else {
      reader.skip();
    }
  }
}

void AnthropicStreamReader::read_message(JsonReader& reader) {
  std::string_view key;
  const bool object = reader.enter_object();
  while (object && reader.next_key(key)) {
    if (key == "model") {
      read_into(reader, m_event.model);
    } else if (key == "usage") {
      read_usage(reader);
    } else {
      reader.skip();
    }
  }
}

void AnthropicStreamReader::read_block(JsonReader& reader) {
  AnthropicBlock& block = m_event.block;
  block = AnthropicBlock{};
  std::string_view key;
  const bool object = reader.enter_object();
  while (object && reader.next_key(key)) {
    if (key == "type") {
      read_into(reader, m_event.block_type);
    } else if (key == "id") {
      read_into(reader, block.id);
    } else if (key == "name") {
      read_into(reader, block.name);
    } else if (key == "text" || key == "thinking" || key == "data") {
      read_into(reader, block.text);
    } else if (key == "signature") {
      read_into(reader, block.signature);
    } else {
      reader.skip(); // the tool_use shell's `input: {}` is a placeholder
    }
  }
}

void AnthropicStreamReader::read_delta(JsonReader& reader) {
  std::string_view key;
  const bool object = reader.enter_object();
  while (object && reader.next_key(key)) {
    if (key == "type") {
      read_into(reader, m_event.delta_type);
    } else if (key == "text" || key == "partial_json" || key == "thinking") {
      read_into(reader, m_event.delta_text);
    } else if (key == "signature") {
      read_into(reader, m_event.delta_signature);
    } else if (key == "stop_reason") {
      read_into(reader, m_event.stop_reason);
    } else {
      reader.skip();
    }
  }
}

void AnthropicStreamReader::apply_event() {
  const std::string& type = m_event.type;
  if (type == "content_block_delta") {
    apply_delta();
  } else if (type == "content_block_start") {
    start_block();
  } else if (type == "message_start") {
    m_model = m_event.model;
    m_usage = m_event.usage;
  } else if (type == "message_delta") {
    if (!m_event.stop_reason.empty()) {
      m_stop_reason = m_event.stop_reason;
    }
    m_usage = m_event.usage;
  } else if (type == "message_stop") {
    m_done = true;
  }
  // ping, content_block_stop and types added after this was written need nothing.
}

void AnthropicStreamReader::start_block() {
  AnthropicBlock& block = m_blocks[m_event.index];
  block = std::move(m_event.block);
  const std::string& type = m_event.block_type;
  if (type == "text") {
    block.type = AnthropicBlock::Type::text;
    if (!block.text.empty() && m_observer != nullptr) {
      m_observer->on_text(block.text);
    }
  } else if (type == "tool_use") {
    block.type = AnthropicBlock::Type::tool_use;
    block.text.clear();
    if (m_observer != nullptr) {
      m_observer->on_tool_call(ToolCall{.id = block.id, .name = block.name});
    }
  } else if (type == "thinking") {
    block.type = AnthropicBlock::Type::thinking;
  } else if (type == "redacted_thinking") {
    block.type = AnthropicBlock::Type::redacted_thinking;
  }
}

void AnthropicStreamReader::apply_delta() {
  const auto found = m_blocks.find(m_event.index);
  if (found == m_blocks.end()) {
    return; // a delta for a block that never started carries nothing we can place
  }
  AnthropicBlock& block = found->second;
  const std::string& type = m_event.delta_type;
  const std::string& text = m_event.delta_text;
  if (type == "text_delta") {
    block.text.append(text);
    if (!text.empty() && m_observer != nullptr) {
      m_observer->on_text(text);
    }
  } else if (type == "input_json_delta") {
    block.text.append(text);
  } else if (type == "thinking_delta") {
    block.text.append(text);
    if (!text.empty() && m_observer != nullptr) {
      m_observer->on_thinking(text);
    }
  } else if (type == "signature_delta") {
    block.signature.append(m_event.delta_signature);
  }
  // citations_delta and future delta types are skipped.
}

Result<ChatResponse> AnthropicStreamReader::finish(const http::Response&) {
  if (m_failure) {
    return fail(*m_failure);
  }
  if (!m_done) {
    Error error;
    error.kind = ErrorKind::network;
    error.retryable = true;
    error.message = "anthropic: stream ended before message_stop (truncated)";
    return fail(std::move(error));
  }
  ChatResponse out;
  out.message.role = Role::assistant;
  for (auto& [index, block] : m_blocks) {
    add_block(out.message, std::move(block));
  }
  out.model = std::move(m_model);
  out.raw_stop_reason = std::move(m_stop_reason);
  out.stop_reason = anthropic_stop_reason(out.raw_stop_reason);
  out.usage = m_usage.total();
  begin();
  return out;
}

} // namespace ralph::llm
