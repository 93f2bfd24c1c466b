#include "llm/anthropic_stream.h"

#include "llm/json_fields.h"
#include "llm/provider_error.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

namespace ralph::llm {

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
  auto payload = parse_json(event.data, "anthropic: stream event");
  if (!payload) {
    m_failure = payload.error();
    return;
  }
  // The JSON type decides; the `event:` line is only a cross-check, except for an error.
  std::string_view type = string_member(*payload, "type");
  if (event.event == "error") {
    type = "error";
  }
  if (type == "content_block_delta") {
    on_block_delta(*payload);
  } else if (type == "content_block_start") {
    on_block_start(*payload);
  } else if (type == "message_start") {
    const nlohmann::json* message = member(*payload, "message");
    if (message != nullptr) {
      m_model = string_member(*message, "model");
      if (const nlohmann::json* usage = member(*message, "usage")) {
        m_usage.update(*usage);
      }
    }
  } else if (type == "message_delta") {
    if (const nlohmann::json* delta = member(*payload, "delta")) {
      const std::string_view stop_reason = string_member(*delta, "stop_reason");
      if (!stop_reason.empty()) {
        m_stop_reason = stop_reason;
      }
    }
    if (const nlohmann::json* usage = member(*payload, "usage")) {
      m_usage.update(*usage);
    }
  } else if (type == "message_stop") {
    m_done = true;
  } else if (type == "error") {
    m_failure = payload_error("anthropic", *payload, m_secret);
  }
  // ping, content_block_stop and types added after this was written need nothing.
}

void AnthropicStreamReader::on_block_start(const nlohmann::json& event) {
  const nlohmann::json* shell = member(event, "content_block");
  if (shell == nullptr) {
    return;
  }
  AnthropicBlock& block = m_blocks[int_member(event, "index").value_or(0)];
  block = AnthropicBlock{};
  const std::string_view type = string_member(*shell, "type");
  if (type == "text") {
    block.type = AnthropicBlock::Type::text;
    block.text = string_member(*shell, "text");
    if (!block.text.empty() && m_observer != nullptr) {
      m_observer->on_text(block.text);
    }
  } else if (type == "tool_use") {
    // The shell's `input: {}` is a placeholder; the input arrives as input_json_delta.
    block.type = AnthropicBlock::Type::tool_use;
    block.id = string_member(*shell, "id");
    block.name = string_member(*shell, "name");
    if (m_observer != nullptr) {
      m_observer->on_tool_call(ToolCall{block.id, block.name, {}});
    }
  } else if (type == "thinking") {
    block.type = AnthropicBlock::Type::thinking;
    block.text = string_member(*shell, "thinking");
    block.signature = string_member(*shell, "signature");
  } else if (type == "redacted_thinking") {
    block.type = AnthropicBlock::Type::redacted_thinking;
    block.text = string_member(*shell, "data");
  }
}

void AnthropicStreamReader::on_block_delta(const nlohmann::json& event) {
  const nlohmann::json* delta = member(event, "delta");
  const auto found = m_blocks.find(int_member(event, "index").value_or(0));
  if (delta == nullptr || found == m_blocks.end()) {
    return; // a delta for a block that never started carries nothing we can place
  }
  AnthropicBlock& block = found->second;
  const std::string_view type = string_member(*delta, "type");
  if (type == "text_delta") {
    const std::string_view text = string_member(*delta, "text");
    block.text.append(text);
    if (!text.empty() && m_observer != nullptr) {
      m_observer->on_text(text);
    }
  } else if (type == "input_json_delta") {
    block.text.append(string_member(*delta, "partial_json"));
  } else if (type == "thinking_delta") {
    const std::string_view thinking = string_member(*delta, "thinking");
    block.text.append(thinking);
    if (!thinking.empty() && m_observer != nullptr) {
      m_observer->on_thinking(thinking);
    }
  } else if (type == "signature_delta") {
    block.signature.append(string_member(*delta, "signature"));
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
