#include "llm/anthropic_request.h"

#include "llm/json_writer.h"

#include <fmt/format.h>

#include <vector>

namespace ralph::llm {
namespace {

// Builds the user turn that tool results and user messages accumulate into until the next
// assistant turn.
class UserTurn {
public:
  void add(const Message& message) {
    if (message.role == Role::tool) {
      m_results.push_back(&message);
    } else {
      m_texts.push_back(&message);
    }
  }

  // Appends the turn (preceded by a comma unless `first`) and empties it.
  void flush(std::string& out, bool& first) {
    if (m_results.empty() && m_texts.empty()) {
      return;
    }
    out.append(first ? R"({"role":"user","content":)" : R"(,{"role":"user","content":)");
    first = false;
    if (m_results.empty() && m_texts.size() == 1) {
      append_json_string(out, m_texts.front()->content);
    } else {
      append_blocks(out);
    }
    out.push_back('}');
    m_results.clear();
    m_texts.clear();
  }

private:
  void append_blocks(std::string& out) const {
    out.push_back('[');
    bool first = true;
    for (const Message* result : m_results) {
      out.append(first ? R"({"type":"tool_result","tool_use_id":)"
                       : R"(,{"type":"tool_result","tool_use_id":)");
      first = false;
      append_json_string(out, result->tool_call_id);
      out.append(R"(,"content":)");
      append_json_string(out, result->content);
      if (result->is_error) {
        out.append(R"(,"is_error":true)");
      }
      out.push_back('}');
    }
    for (const Message* text : m_texts) {
      out.append(first ? R"({"type":"text","text":)" : R"(,{"type":"text","text":)");
      first = false;
      append_json_string(out, text->content);
      out.push_back('}');
    }
    out.push_back(']');
  }

  std::vector<const Message*> m_results;
  std::vector<const Message*> m_texts;
};

bool is_echoable(const ThinkingBlock& block) {
  return block.redacted ? !block.redacted_data.empty() : !block.signature.empty();
}

bool has_blocks(const Message& message) {
  if (!message.content.empty() || !message.tool_calls.empty()) {
    return true;
  }
  for (const ThinkingBlock& block : message.thinking) {
    if (is_echoable(block)) {
      return true;
    }
  }
  return false;
}

void append_assistant(std::string& out, const Message& message, bool& first) {
  out.append(first ? R"({"role":"assistant","content":[)" : R"(,{"role":"assistant","content":[)");
  first = false;
  bool first_block = true;
  const auto open = [&](std::string_view type) {
    out.append(first_block ? R"({"type":")" : R"(,{"type":")");
    first_block = false;
    out.append(type);
    out.push_back('"');
  };
  for (const ThinkingBlock& block : message.thinking) {
    if (!is_echoable(block)) {
      continue;
    }
    if (block.redacted) {
      open("redacted_thinking");
      out.append(R"(,"data":)");
      append_json_string(out, block.redacted_data);
    } else {
      open("thinking");
      out.append(R"(,"thinking":)");
      append_json_string(out, block.thinking);
      out.append(R"(,"signature":)");
      append_json_string(out, block.signature);
    }
    out.push_back('}');
  }
  if (!message.content.empty()) {
    open("text");
    out.append(R"(,"text":)");
    append_json_string(out, message.content);
    out.push_back('}');
  }
  for (const ToolCall& call : message.tool_calls) {
    open("tool_use");
    out.append(R"(,"id":)");
    append_json_string(out, call.id);
    out.append(R"(,"name":)");
    append_json_string(out, call.name);
    out.append(R"(,"input":)");
    append_json_object_or_empty(out, call.arguments);
    out.push_back('}');
  }
  out.append("]}");
}

void append_tools(std::string& out, const ChatRequest& request) {
  if (request.tools.empty()) {
    return;
  }
  out.append(R"(,"tools":[)");
  bool first = true;
  for (const ToolSpec& tool : request.tools) {
    out.append(first ? R"({"name":)" : R"(,{"name":)");
    first = false;
    append_json_string(out, tool.name);
    if (!tool.description.empty()) {
      out.append(R"(,"description":)");
      append_json_string(out, tool.description);
    }
    out.append(R"(,"input_schema":)");
    out.append(tool.parameters);
    out.push_back('}');
  }
  out.push_back(']');
}

} // namespace

std::string build_anthropic_body(const ChatRequest& request) {
  std::size_t size = 256 + request.system.size();
  for (const Message& message : request.messages) {
    size += 96 + message.content.size();
    for (const ToolCall& call : message.tool_calls) {
      size += 96 + call.name.size() + call.arguments.size();
    }
    for (const ThinkingBlock& block : message.thinking) {
      size += 64 + block.thinking.size() + block.signature.size() + block.redacted_data.size();
    }
  }
  for (const ToolSpec& tool : request.tools) {
    size += 64 + tool.name.size() + tool.description.size() + tool.parameters.size();
  }
  std::string out;
  out.reserve(size);
  out.append(R"({"model":)");
  append_json_string(out, request.model);
  fmt::format_to(std::back_inserter(out), R"(,"max_tokens":{},"messages":[)", request.max_tokens);

  std::string system = request.system;
  UserTurn user;
  bool first = true;
  for (const Message& message : request.messages) {
    switch (message.role) {
    case Role::system:
      system.append(system.empty() ? "" : "\n\n").append(message.content);
      break;
    case Role::user:
    case Role::tool:
      user.add(message);
      break;
    case Role::assistant:
      if (has_blocks(message)) {
        user.flush(out, first);
        append_assistant(out, message, first);
      }
      break;
    }
  }
  user.flush(out, first);
  out.push_back(']');

  if (!system.empty()) {
    out.append(R"(,"system":)");
    append_json_string(out, system);
  }
  append_tools(out, request);
  if (request.temperature) {
    fmt::format_to(std::back_inserter(out), R"(,"temperature":{})", *request.temperature);
  }
  if (request.json_schema) {
    out.append(R"(,"output_config":{"format":{"type":"json_schema","schema":)");
    out.append(*request.json_schema);
    out.append("}}");
  }
  out.append(request.stream ? R"(,"stream":true})" : R"(,"stream":false})");
  return out;
}

} // namespace ralph::llm
