#include "llm/responses_request.h"

#include "llm/json_writer.h"

#include <fmt/format.h>

namespace ralph::llm {
namespace {

void append_message_item(std::string& out, std::string_view role, std::string_view content) {
  out.append(R"({"type":"message","role":)");
  append_json_string(out, role);
  out.append(R"(,"content":)");
  append_json_string(out, content);
  out.push_back('}');
}

// One message as input items; `first` says whether a comma is due before the next item.
void append_items(std::string& out, const Message& message, bool& first) {
  const auto separate = [&out, &first] {
    if (!first) {
      out.push_back(',');
    }
    first = false;
  };
  if (message.role == Role::tool) {
    separate();
    out.append(R"({"type":"function_call_output","call_id":)");
    append_json_string(out, message.tool_call_id);
    out.append(R"(,"output":)");
    append_json_string(out, message.content);
    out.push_back('}');
    return;
  }
  if (message.role != Role::assistant || !message.content.empty() || message.tool_calls.empty()) {
    separate();
    append_message_item(out, to_string(message.role), message.content);
  }
  if (message.role != Role::assistant) {
    return;
  }
  for (const ToolCall& call : message.tool_calls) {
    separate();
    out.append(R"({"type":"function_call","call_id":)");
    append_json_string(out, call.id);
    out.append(R"(,"name":)");
    append_json_string(out, call.name);
    out.append(R"(,"arguments":)");
    append_json_string(out, call.arguments);
    out.push_back('}');
  }
}

void append_tools(std::string& out, const ChatRequest& request) {
  if (request.tools.empty()) {
    return;
  }
  out.append(R"(,"tools":[)");
  bool first = true;
  for (const ToolSpec& tool : request.tools) {
    out.append(first ? R"({"type":"function","name":)" : R"(,{"type":"function","name":)");
    first = false;
    append_json_string(out, tool.name);
    if (!tool.description.empty()) {
      out.append(R"(,"description":)");
      append_json_string(out, tool.description);
    }
    out.append(R"(,"parameters":)");
    out.append(tool.parameters);
    out.append(R"(,"strict":false})");
  }
  out.append(R"(],"tool_choice":"auto")");
}

} // namespace

std::string build_responses_body(const ChatRequest& request) {
  std::string out;
  out.reserve(estimated_body_size(request));
  out.append(R"({"model":)");
  append_json_string(out, request.model);
  if (!request.system.empty()) {
    out.append(R"(,"instructions":)");
    append_json_string(out, request.system);
  }
  out.append(R"(,"input":[)");
  bool first = true;
  for (const Message& message : request.messages) {
    append_items(out, message, first);
  }
  out.push_back(']');
  append_tools(out, request);
  fmt::format_to(std::back_inserter(out), R"(,"max_output_tokens":{})", request.max_tokens);
  if (request.temperature) {
    fmt::format_to(std::back_inserter(out), R"(,"temperature":{})", *request.temperature);
  }
  if (request.json_schema) {
    out.append(R"(,"text":{"format":{"type":"json_schema","name":)");
    append_json_string(out, request.json_schema_name);
    out.append(R"(,"schema":)");
    out.append(*request.json_schema);
    out.append(request.json_schema_strict ? R"(,"strict":true}})" : R"(,"strict":false}})");
  }
  out.append(request.stream ? R"(,"store":false,"stream":true})"
                            : R"(,"store":false,"stream":false})");
  return out;
}

} // namespace ralph::llm
