#include "ralph/mcp/dispatcher.h"

#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <exception>

namespace ralph::mcp {

using nlohmann::json;

namespace {

constexpr std::string_view k_version_key = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view k_server_info_key = "io.modelcontextprotocol/serverInfo";
constexpr std::string_view k_capabilities_key = "io.modelcontextprotocol/clientCapabilities";
constexpr std::string_view k_client_info_key = "io.modelcontextprotocol/clientInfo";
// How long a client may keep the tool list: it changes only with a new ralph.
constexpr int k_list_ttl_ms = 3600 * 1000;

Reply error_reply(const json& id, int code, const std::string& message,
                  const json& data = nullptr) {
  return Reply{.body = rpc_error_text(id, code, message, data), .error_code = code};
}

bool is_legacy_version(std::string_view version) {
  return std::find(std::begin(k_legacy_versions), std::end(k_legacy_versions), version) !=
         std::end(k_legacy_versions);
}

json tool_json(const ServerToolSpec& spec) {
  json tool = {{"name", spec.name}, {"description", spec.description}};
  if (!spec.title.empty()) {
    tool["title"] = spec.title;
  }
  tool["inputSchema"] = json::parse(spec.input_schema);
  if (!spec.output_schema.empty()) {
    tool["outputSchema"] = json::parse(spec.output_schema);
  }
  tool["annotations"] = {{"title", spec.title.empty() ? spec.name : spec.title},
                         {"readOnlyHint", spec.read_only},
                         {"destructiveHint", spec.destructive},
                         {"idempotentHint", spec.idempotent},
                         {"openWorldHint", spec.open_world}};
  return tool;
}

} // namespace

// One parsed request or notification.
struct IncomingRequest {
  json id; // null for a notification
  bool notification = false;
  std::string method;
  json params = json::object();
  bool modern = false;
};

Dispatcher::Dispatcher(ServerIdentity identity, std::vector<std::unique_ptr<ServerTool>> tools,
                       bool read_only, const Redactor* redactor)
    : m_identity(std::move(identity)), m_tools(std::move(tools)), m_read_only(read_only),
      m_redactor(redactor) {}

void Dispatcher::cancel_all() {
  const std::lock_guard lock(m_mutex);
  m_closed = true;
  for (auto& [id, token] : m_running) {
    token.cancel();
  }
}

Reply Dispatcher::handle(std::string_view text, const Send& send, const CancelToken& cancel) {
  if (text.size() > k_max_message_bytes) {
    return error_reply(nullptr, k_invalid_request,
                       fmt::format("message of {} bytes refused: the limit is {} bytes (4 MiB)",
                                   text.size(), k_max_message_bytes));
  }
  Result<json> parsed = parse_json(text, "MCP message");
  if (!parsed) {
    return error_reply(nullptr, k_parse_error, "Parse error: " + parsed.error().message);
  }
  const json& message = *parsed;
  if (message.is_array()) {
    return error_reply(nullptr, k_invalid_request,
                       "batch arrays are not supported (JSON-RPC batching left MCP in 2025-06-18): "
                       "send one message at a time");
  }
  if (!message.is_object()) {
    return error_reply(nullptr, k_invalid_request,
                       "Invalid Request: a JSON-RPC message is an object");
  }
  const json* id = member(message, "id");
  const json* method = member(message, "method");
  if (method == nullptr && id != nullptr &&
      (message.contains("result") || message.contains("error"))) {
    return {}; // a response to a request this server never sends: nothing to answer
  }
  const json reply_id =
      id != nullptr && (id->is_string() || id->is_number_integer()) ? *id : json();
  if (string_member(message, "jsonrpc") != "2.0") {
    return error_reply(reply_id, k_invalid_request, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
  }
  if (method == nullptr || !method->is_string()) {
    return error_reply(reply_id, k_invalid_request, "Invalid Request: \"method\" must be a string");
  }
  if (id != nullptr && !id->is_string() && !id->is_number_integer()) {
    return error_reply(nullptr, k_invalid_request,
                       "Invalid Request: \"id\" must be a string or an integer");
  }
  IncomingRequest request{
      .id = reply_id, .notification = id == nullptr, .method = method->get<std::string>()};
  if (const json* params = member(message, "params"); params != nullptr && !params->is_null()) {
    if (!params->is_object()) {
      Reply reply =
          error_reply(reply_id, k_invalid_params, "Invalid params: \"params\" must be an object");
      reply.method = request.method;
      return request.notification ? Reply{} : reply;
    }
    request.params = *params;
  }
  const json* meta = member(request.params, "_meta");
  const json* version = meta != nullptr ? member(*meta, k_version_key) : nullptr;
  const bool claims_modern =
      meta != nullptr && (version != nullptr || member(*meta, k_capabilities_key) != nullptr ||
                          member(*meta, k_client_info_key) != nullptr);
  if (request.method == "server/discover" || claims_modern) {
    request.modern = true;
    // The 2026-07-28 envelope is whole or the request is refused: a version to answer in and
    // the client's capabilities, so that nothing is assumed of the client.
    std::string missing;
    if (version == nullptr) {
      missing = std::string(k_version_key);
    } else if (member(*meta, k_capabilities_key) == nullptr) {
      missing = std::string(k_capabilities_key);
    }
    if (!missing.empty()) {
      if (request.notification) {
        return {};
      }
      Reply reply = error_reply(reply_id, k_invalid_params,
                                fmt::format("Invalid params: _meta needs \"{}\" (protocol {})",
                                            missing, k_modern_version));
      reply.modern = true;
      reply.bad_envelope = true;
      reply.method = request.method;
      return reply;
    }
    if (!version->is_string() || version->get<std::string>() != k_modern_version) {
      if (request.notification) {
        return {};
      }
      Reply reply = error_reply(
          reply_id, k_unsupported_version,
          fmt::format("Unsupported protocol version {}: this server speaks {} (or {} through "
                      "initialize)",
                      version->dump(), k_modern_version, k_legacy_versions[0]),
          json{{"supported", json::array({k_modern_version})}, {"requested", *version}});
      reply.modern = true;
      reply.method = request.method;
      return reply;
    }
  }
  Reply reply;
  const Send redacted_send = [this, &send](const std::string& notification) {
    send(m_redactor != nullptr ? m_redactor->redact_json(notification) : notification);
  };
  try {
    reply = dispatch(request, redacted_send, cancel);
  } catch (const std::exception& e) {
    reply = error_reply(reply_id, k_internal_error, std::string("Internal error: ") + e.what());
  }
  if (m_redactor != nullptr && !reply.body.empty()) {
    reply.body = m_redactor->redact_json(reply.body);
  }
  reply.modern = request.modern;
  reply.method = request.method;
  if (request.notification) {
    reply.body.clear();
  }
  return reply;
}

Reply Dispatcher::dispatch(const IncomingRequest& request, const Send& send,
                           const CancelToken& cancel) {
  const std::string& method = request.method;
  if (method == "notifications/cancelled") {
    const json* id = member(request.params, "requestId");
    if (id != nullptr) {
      const std::lock_guard lock(m_mutex);
      if (auto found = m_running.find(id->dump()); found != m_running.end()) {
        found->second.cancel();
      }
    }
    return {};
  }
  if (request.notification) {
    return {}; // notifications/initialized and anything else announced: nothing to do
  }
  json result;
  Reply reply;
  if (request.modern && (method == "initialize" || method == "ping")) {
    // Gone in 2026-07-28: a request in that era asking for them asks for nothing we have.
    return error_reply(request.id, k_method_not_found,
                       "Method not found: " + method + " (removed in " +
                           std::string(k_modern_version) + ")");
  }
  if (method == "initialize") {
    const std::string_view asked = string_member(request.params, "protocolVersion");
    result = {{"protocolVersion",
               is_legacy_version(asked) ? std::string(asked) : std::string(k_legacy_versions[0])},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", {{"name", m_identity.name}, {"version", m_identity.version}}}};
    if (!m_identity.instructions.empty()) {
      result["instructions"] = m_identity.instructions;
    }
    reply.initialize = true;
  } else if (method == "ping") {
    result = json::object();
  } else if (method == "server/discover") {
    result = {{"supportedVersions", json::array({k_modern_version})},
              {"capabilities", {{"tools", json::object()}}}};
    if (!m_identity.instructions.empty()) {
      result["instructions"] = m_identity.instructions;
    }
  } else if (method == "tools/list") {
    if (const json* cursor = member(request.params, "cursor");
        cursor != nullptr && !cursor->is_null()) {
      // One page holds every tool, so no cursor of ours exists to come back with.
      return error_reply(request.id, k_invalid_params, "Invalid params: unknown cursor");
    }
    json tools = json::array();
    for (const auto& tool : m_tools) {
      tools.push_back(tool_json(tool->spec()));
    }
    result = {{"tools", std::move(tools)}};
    if (request.modern) {
      result["ttlMs"] = k_list_ttl_ms;
      result["cacheScope"] = "public";
    }
  } else if (method == "tools/call") {
    const std::string_view name = string_member(request.params, "name");
    const auto tool = std::find_if(m_tools.begin(), m_tools.end(),
                                   [&](const auto& t) { return t->spec().name == name; });
    if (tool == m_tools.end()) {
      return error_reply(request.id, k_invalid_params, fmt::format("Unknown tool: '{}'", name));
    }
    const json* arguments = member(request.params, "arguments");
    json args = arguments == nullptr || arguments->is_null() ? json::object() : *arguments;
    if (!args.is_object()) {
      return error_reply(request.id, k_invalid_params,
                         "Invalid params: \"arguments\" must be an object");
    }
    ToolOutcome outcome;
    if (m_read_only && (*tool)->spec().runs_anything) {
      outcome = {.text = fmt::format("{} refused: this server is read-only (--read-only)", name),
                 .is_error = true};
    } else {
      const json* meta = member(request.params, "_meta");
      const json* token = meta != nullptr ? member(*meta, "progressToken") : nullptr;
      const json progress_token = token != nullptr ? *token : json();
      // Cancelled by the transport (a closed stream), by notifications/cancelled naming this
      // id, or by cancel_all().
      const CancelToken call_cancel = cancel.child();
      const std::string key = request.id.dump();
      {
        const std::lock_guard lock(m_mutex);
        m_running[key] = call_cancel;
        if (m_closed) {
          call_cancel.cancel();
        }
      }
      struct Forget {
        Dispatcher& self;
        const std::string& key;
        ~Forget() {
          const std::lock_guard lock(self.m_mutex);
          self.m_running.erase(key);
        }
      } forget{*this, key};
      ToolCallContext context{
          .cancel = call_cancel, .progress = [&](const ToolProgress& step) {
            if (progress_token.is_null() || !send) {
              return;
            }
            json params = {{"progressToken", progress_token}, {"progress", step.progress}};
            if (step.total) {
              params["total"] = *step.total;
            }
            if (!step.message.empty()) {
              params["message"] = step.message;
            }
            send(json{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", params}}
                     .dump(-1, ' ', false, json::error_handler_t::replace));
          }};
      Result<ToolOutcome> called = (*tool)->call(args, context);
      if (!called && called.error().kind == ErrorKind::usage) {
        return error_reply(request.id, k_invalid_params,
                           "Invalid params: " + called.error().message);
      }
      outcome = called ? std::move(*called)
                       : ToolOutcome{.text = called.error().message, .is_error = true};
    }
    result = {{"content", json::array({{{"type", "text"}, {"text", outcome.text}}})},
              {"isError", outcome.is_error}};
    if (!outcome.structured.empty()) {
      result["structuredContent"] = json::parse(outcome.structured);
    }
  } else {
    return error_reply(request.id, k_method_not_found, "Method not found: " + method);
  }
  if (request.modern) {
    result["resultType"] = "complete";
    result["_meta"] = {
        {k_server_info_key, {{"name", m_identity.name}, {"version", m_identity.version}}}};
  }
  reply.body = json{{"jsonrpc", "2.0"}, {"id", request.id}, {"result", std::move(result)}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
  return reply;
}

} // namespace ralph::mcp
