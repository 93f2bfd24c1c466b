#include "tool_call_result.h"

#include <fmt/format.h>

namespace ralph::mcp {
namespace {

std::string string_field(const Json& object, const char* name) {
  const auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string content_line(const Json& item) {
  if (!item.is_object()) {
    return "[content that is not an object]";
  }
  const std::string type = string_field(item, "type");
  if (type == "text") {
    return string_field(item, "text");
  }
  if (type == "image" || type == "audio") {
    const std::string data = string_field(item, "data");
    return fmt::format("[{} content: {}, {} bytes of base64, not shown]", type,
                       string_field(item, "mimeType"), data.size());
  }
  if (type == "resource") {
    const Json resource = item.value("resource", Json::object());
    return fmt::format("[resource: {}]", resource.is_object() ? string_field(resource, "uri") : "");
  }
  if (type == "resource_link") {
    return fmt::format("[resource link: {} {}]", string_field(item, "uri"),
                       string_field(item, "name"));
  }
  return fmt::format("[{} content, not shown]", type.empty() ? "untyped" : type);
}

} // namespace

CallResult tool_call_result(const Json& result) {
  CallResult call;
  if (!result.is_object()) {
    call.is_error = true;
    call.text = "the server's tools/call result is not a JSON object";
    return call;
  }
  const auto is_error = result.find("isError");
  call.is_error = is_error != result.end() && is_error->is_boolean() && is_error->get<bool>();
  const auto structured = result.find("structuredContent");
  if (!call.is_error && structured != result.end() && !structured->is_null()) {
    call.text = structured->dump(-1, ' ', false, Json::error_handler_t::replace);
    return call;
  }
  const auto content = result.find("content");
  if (content != result.end() && content->is_array()) {
    for (const Json& item : *content) {
      if (!call.text.empty()) {
        call.text += '\n';
      }
      call.text += content_line(item);
    }
  }
  return call;
}

} // namespace ralph::mcp
