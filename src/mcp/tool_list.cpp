#include "tool_list.h"

#include "ralph/core/json.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::mcp {
namespace {

constexpr int max_tool_pages = 1000;

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

} // namespace

std::string describe(const RpcReply& reply) {
  if (reply.error) {
    return fmt::format("{} (JSON-RPC error {})", reply.error->message, reply.error->code);
  }
  switch (reply.failure) {
  case RpcFailure::timeout:
    return "no answer in time";
  case RpcFailure::cancelled:
    return "cancelled";
  default:
    return reply.failure_message;
  }
}

Result<ToolList> list_tools(RpcChannel& channel, const std::function<Json(Json)>& with_meta,
                            const McpServerSettings& settings, std::chrono::milliseconds timeout) {
  ToolList list;
  std::string cursor;
  for (int page = 0; page < max_tool_pages; ++page) {
    RpcRequest request;
    request.method = "tools/list";
    request.params = with_meta(cursor.empty() ? Json::object() : Json{{"cursor", cursor}});
    request.timeout = timeout;
    const RpcReply reply = channel.request(request);
    if (reply.failure != RpcFailure::none || reply.error || !reply.result.is_object()) {
      return fail(ErrorKind::tool, fmt::format("tools/list failed: {}",
                                               reply.failure == RpcFailure::none && !reply.error
                                                   ? std::string("not an object")
                                                   : describe(reply)));
    }
    const Json listed = reply.result.value("tools", Json::array());
    for (const Json& item : listed.is_array() ? listed : Json::array()) {
      if (!item.is_object() || !item.contains("name") || !item["name"].is_string()) {
        continue;
      }
      RemoteTool tool;
      tool.name = item["name"].get<std::string>();
      if ((!settings.enabled_tools.empty() && !contains(settings.enabled_tools, tool.name)) ||
          contains(settings.disabled_tools, tool.name)) {
        continue;
      }
      tool.title = std::string(string_member(item, "title"));
      tool.description = std::string(string_member(item, "description"));
      if (const auto it = item.find("inputSchema"); it != item.end() && it->is_object()) {
        tool.input_schema = it->dump();
        if (auto headers = param_headers(*it); !headers.empty()) {
          list.param_headers[tool.name] = std::move(headers);
        }
      }
      if (const auto it = item.find("outputSchema"); it != item.end() && it->is_object()) {
        tool.output_schema = it->dump();
      }
      list.tools.push_back(std::move(tool));
    }
    const Json next = reply.result.value("nextCursor", Json());
    if (!next.is_string() || next.get<std::string>().empty()) {
      return list;
    }
    cursor = next.get<std::string>();
  }
  return fail(ErrorKind::tool, fmt::format("tools/list gave more than {} pages", max_tool_pages));
}

} // namespace ralph::mcp
