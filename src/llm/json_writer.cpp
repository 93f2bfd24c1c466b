#include "llm/json_writer.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"

namespace ralph::llm {
namespace {

constexpr std::string_view k_replacement = "\xEF\xBF\xBD";

} // namespace

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char k_hex[] = "0123456789abcdef";
  out.reserve(out.size() + text.size() + 2);
  out.push_back('"');
  std::size_t i = 0;
  while (i < text.size()) {
    // Copy the longest run that needs no escaping in one go.
    std::size_t run = i;
    while (run < text.size()) {
      const auto c = static_cast<unsigned char>(text[run]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) {
        break;
      }
      ++run;
    }
    out.append(text.substr(i, run - i));
    i = run;
    if (i == text.size()) {
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence_length(text.substr(i));
      if (length == 0) {
        out.append(k_replacement);
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    ++i;
    switch (c) {
    case '"':
      out.append("\\\"");
      break;
    case '\\':
      out.append("\\\\");
      break;
    case '\n':
      out.append("\\n");
      break;
    case '\r':
      out.append("\\r");
      break;
    case '\t':
      out.append("\\t");
      break;
    case '\b':
      out.append("\\b");
      break;
    case '\f':
      out.append("\\f");
      break;
    default:
      out.append("\\u00");
      out.push_back(k_hex[c >> 4]);
      out.push_back(k_hex[c & 0xF]);
      break;
    }
  }
  out.push_back('"');
}

void append_json_object_or_empty(std::string& out, std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start != std::string_view::npos && text[start] == '{' && accepts_json(text)) {
    out.append(text);
    return;
  }
  out.append("{}");
}

std::size_t estimated_body_size(const ChatRequest& request) {
  std::size_t size = 256 + request.system.size();
  for (const Message& message : request.messages) {
    size += 64 + message.content.size();
    for (const ToolCall& call : message.tool_calls) {
      size += 96 + call.name.size() + call.arguments.size() * 5 / 4;
    }
  }
  for (const ToolSpec& tool : request.tools) {
    size += 64 + tool.name.size() + tool.description.size() + tool.parameters.size();
  }
  return size;
}

} // namespace ralph::llm
