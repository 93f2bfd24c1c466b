#include "rpc_message.h"

#include "ralph/core/json.h"

#include <climits>
#include <fmt/format.h>
namespace ralph::mcp {
namespace {

tl::unexpected<Error> bad(std::string_view why) {
  return fail(ErrorKind::parse, fmt::format("malformed JSON-RPC message: {}", why));
}

bool valid_id(const Json& id) {
  return id.is_string() || id.is_number_integer();
}

} // namespace

Result<RpcMessage> parse_rpc_message(std::string_view text) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return bad("not JSON");
  }
  if (!json.is_object()) {
    return bad("not a JSON object");
  }
  const auto version = json.find("jsonrpc");
  if (version == json.end() || *version != "2.0") {
    return bad(R"(no "jsonrpc":"2.0")");
  }
  RpcMessage message;
  const auto method = json.find("method");
  const auto id = json.find("id");
  if (method != json.end()) {
    if (!method->is_string()) {
      return bad("\"method\" is not a string");
    }
    message.method = method->get<std::string>();
    if (const auto params = json.find("params"); params != json.end()) {
      if (!params->is_object() && !params->is_array()) {
        return bad("\"params\" is neither an object nor an array");
      }
      message.params = *params;
    }
    if (id == json.end()) {
      message.kind = RpcKind::notification;
      return message;
    }
    if (!valid_id(*id)) {
      return bad("\"id\" is neither a string nor an integer");
    }
    message.kind = RpcKind::request;
    message.id = *id;
    return message;
  }
  if (id == json.end()) {
    return bad("neither \"method\" nor \"id\"");
  }
  if (!valid_id(*id) && !id->is_null()) {
    return bad("\"id\" is neither a string nor an integer");
  }
  message.kind = RpcKind::response;
  message.id = *id;
  const auto result = json.find("result");
  const auto error = json.find("error");
  if ((result == json.end()) == (error == json.end())) {
    return bad("a response needs exactly one of \"result\" and \"error\"");
  }
  if (result != json.end()) {
    message.result = *result;
    return message;
  }
  if (!error->is_object() || !error->contains("code") || !(*error)["code"].is_number_integer()) {
    return bad("\"error\" has no integer \"code\"");
  }
  RpcError rpc_error;
  rpc_error.code = int_member_or(*error, "code", k_internal_error, INT_MIN, INT_MAX);
  rpc_error.message = std::string(string_member(*error, "message"));
  rpc_error.data = error->value("data", Json());
  message.error = std::move(rpc_error);
  return message;
}

std::string rpc_request_text(std::int64_t id, std::string_view method, const Json& params) {
  Json json = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) {
    json["params"] = params;
  }
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string rpc_notification_text(std::string_view method, const Json& params) {
  Json json = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) {
    json["params"] = params;
  }
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string rpc_result_text(const Json& id, const Json& result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump(
      -1, ' ', false, Json::error_handler_t::replace);
}

} // namespace ralph::mcp
