#pragma once

#include "ralph/core/error.h"
#include "ralph/mcp/protocol.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::mcp {

using Json = nlohmann::json;

struct RpcError {
  int code = 0;
  std::string message;
  Json data;
};

enum class RpcKind { request, notification, response };

// One JSON-RPC message as it came off the wire.
struct RpcMessage {
  RpcKind kind = RpcKind::notification;
  Json id; // requests and responses
  std::string method;
  Json params;
  Json result;
  std::optional<RpcError> error;
};

// Parses one message. An Error (kind `parse`) says what is wrong with it: not JSON, not an
// object, no "jsonrpc":"2.0", or none of the shapes of a request, notification or response.
Result<RpcMessage> parse_rpc_message(std::string_view text);

// Serialized on one line (no raw newlines: JSON escapes them inside strings).
std::string rpc_request_text(std::int64_t id, std::string_view method, const Json& params);
std::string rpc_notification_text(std::string_view method, const Json& params);
std::string rpc_result_text(const Json& id, const Json& result);

} // namespace ralph::mcp
