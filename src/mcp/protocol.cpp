#include "ralph/mcp/protocol.h"

#include <nlohmann/json.hpp>

namespace ralph::mcp {

std::string rpc_error_text(const nlohmann::json& id, int code, std::string_view message) {
  return rpc_error_text(id, code, message, nullptr);
}

std::string rpc_error_text(const nlohmann::json& id, int code, std::string_view message,
                           const nlohmann::json& data) {
  nlohmann::json error = {{"code", code}, {"message", message}};
  if (!data.is_null()) {
    error["data"] = data;
  }
  return nlohmann::json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace ralph::mcp
