#include "llm/openai_request.h"

#include "llm/json_writer.h"

#include <fmt/format.h>

namespace ralph::llm {
namespace {

void append_message(std::string& out, const Message& message) {
  out.append(R"({"role":)");
  append_json_string(out, to_string(message.role));
  if (message.role == Role::tool) {
    out.append(R"(,"tool_call_id":)");
    append_json_string(out, message.tool_call_id);
  }
  out.append(R"(,"content":)");
  if (message.role == Role::assistant && message.content.empty() && !message.tool_calls.empty()) {
    out.append("null");
  } else {
    append_json_string(out, message.content);
  }
  if (message.role == Role::assistant && !message.tool_calls.empty()) {
    out.append(R"(,"tool_calls":[)");
    bool first = true;
    for (const ToolCall& call : message.tool_calls) {
      out.append(first ? R"({"id":)" : R"(,{"id":)");
      first = false;
      append_json_string(out, call.id);
      out.append(R"(,"type":"function","function":{"name":)");
      append_json_string(out, call.name);
      out.append(R"(,"arguments":)");
      append_json_string(out, call.arguments);
      out.append("}}");
    }
    out.push_back(']');
  }
  out.push_back('}');
}

void append_tools(std::string& out, const OpenAiDialect& dialect, const ChatRequest& request) {
  if (request.tools.empty()) {
    return;
  }
  out.append(R"(,"tools":[)");
  bool first = true;
  for (const ToolSpec& tool : request.tools) {
    out.append(first ? R"({"type":"function","function":{"name":)"
                     : R"(,{"type":"function","function":{"name":)");
    first = false;
    append_json_string(out, tool.name);
    if (!tool.description.empty()) {
      out.append(R"(,"description":)");
      append_json_string(out, tool.description);
    }
    out.append(R"(,"parameters":)");
    out.append(tool.parameters);
    out.append("}}");
  }
  out.push_back(']');
  if (dialect.tool_choice) {
    out.append(R"(,"tool_choice":"auto")");
  }
}

} // namespace

std::string build_openai_body(const OpenAiDialect& dialect, const ChatRequest& request) {
  std::string out;
  out.reserve(estimated_body_size(request));
  out.append(R"({"model":)");
  append_json_string(out, request.model);
  out.append(R"(,"messages":[)");
  bool first = true;
  if (!request.system.empty()) {
    out.append(R"({"role":"system","content":)");
    append_json_string(out, request.system);
    out.push_back('}');
    first = false;
  }
  for (const Message& message : request.messages) {
    if (!first) {
      out.push_back(',');
    }
    first = false;
    append_message(out, message);
  }
  out.push_back(']');
  append_tools(out, dialect, request);
  fmt::format_to(std::back_inserter(out), R"(,"{}":{})",
                 dialect.max_completion_tokens ? "max_completion_tokens" : "max_tokens",
                 request.max_tokens);
  if (request.temperature) {
    fmt::format_to(std::back_inserter(out), R"(,"temperature":{})", *request.temperature);
  }
  if (request.json_schema) {
    out.append(R"(,"response_format":{"type":"json_schema","json_schema":{"name":)");
    append_json_string(out, request.json_schema_name);
    out.append(R"(,"schema":)");
    out.append(*request.json_schema);
    out.append(request.json_schema_strict ? R"(,"strict":true}})" : R"(,"strict":false}})");
  }
  out.append(request.stream ? R"(,"stream":true,"stream_options":{"include_usage":true}})"
                            : R"(,"stream":false})");
  return out;
}

} // namespace ralph::llm
