#include "handshake.h"

#include "tool_list.h"

#include "ralph/core/json.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace ralph::mcp {
namespace {

// What a legacy `initialize` may settle on: the versions ralph offers, and the first one too.
constexpr std::array<std::string_view, 4> legacy_versions{
    k_legacy_versions[0], k_legacy_versions[1], k_legacy_versions[2], "2024-11-05"};

using std::chrono::milliseconds;

void take_server_info(Handshake& handshake, const Json& info) {
  if (info.is_object()) {
    handshake.server_name = std::string(string_member(info, "name"));
    handshake.server_version = std::string(string_member(info, "version"));
  }
}

} // namespace

Json client_info() {
  return {{"name", "ralph"}, {"version", RALPH_VERSION}};
}

Json modern_meta(const std::string& version) {
  return {{"io.modelcontextprotocol/protocolVersion", version},
          {"io.modelcontextprotocol/clientInfo", client_info()},
          {"io.modelcontextprotocol/clientCapabilities", Json::object()}};
}

Result<Handshake> handshake(RpcChannel& channel, Era known,
                            std::chrono::steady_clock::time_point deadline) {
  const auto left = [&] {
    return std::max(milliseconds(1), std::chrono::duration_cast<milliseconds>(
                                         deadline - std::chrono::steady_clock::now()));
  };
  Handshake settled;
  std::string version(k_legacy_versions[0]);
  // A server's era is probed once; a restarted legacy server goes straight to `initialize`.
  if (known != Era::legacy) {
    RpcRequest discover;
    discover.method = "server/discover";
    discover.params = {{"_meta", modern_meta(std::string(k_modern_version))}};
    // A legacy server may stay silent: half the time is left for `initialize`.
    discover.timeout = known == Era::modern ? left() : left() / 2;
    // Over HTTP the probe is a current-era POST, headers included.
    channel.set_protocol(Era::unknown, std::string(k_modern_version));
    const RpcReply reply = channel.request(discover);
    if (reply.failure == RpcFailure::none && !reply.error && reply.result.is_object()) {
      const Json meta = reply.result.value("_meta", Json::object());
      Json info =
          meta.is_object() ? meta.value("io.modelcontextprotocol/serverInfo", Json()) : Json();
      if (!info.is_object()) {
        info = reply.result.value("serverInfo", Json());
      }
      settled.era = Era::modern;
      settled.version = k_modern_version;
      take_server_info(settled, info);
      channel.set_protocol(Era::modern, settled.version);
      return settled;
    }
    if (reply.failure == RpcFailure::closed) {
      return fail(ErrorKind::tool,
                  fmt::format("it exited before answering ({})", reply.failure_message));
    }
    if (reply.failure == RpcFailure::transport && reply.http_status == 0) {
      return fail(ErrorKind::network, reply.failure_message);
    }
    if (reply.error && reply.error->code == k_unsupported_version) {
      // It speaks another version: one of the older ones it lists, if any.
      const Json data = reply.error->data;
      const Json supported = data.is_object() ? data.value("supported", Json::array()) : Json();
      std::string pick;
      for (const Json& offered : supported.is_array() ? supported : Json::array()) {
        for (const std::string_view legacy : legacy_versions) {
          if (pick.empty() && offered.is_string() && offered.get<std::string>() == legacy) {
            pick = std::string(legacy);
          }
        }
      }
      if (pick.empty()) {
        return fail(ErrorKind::tool,
                    fmt::format("it supports none of ralph's protocol versions (it offers {})",
                                supported.dump()));
      }
      version = pick;
    }
  }
  channel.set_protocol(Era::legacy, "");
  RpcRequest initialize;
  initialize.method = "initialize";
  initialize.params = {{"protocolVersion", version},
                       {"capabilities", Json::object()},
                       {"clientInfo", client_info()}};
  initialize.timeout = left();
  const RpcReply reply = channel.request(initialize);
  if (reply.failure != RpcFailure::none || reply.error || !reply.result.is_object()) {
    return fail(ErrorKind::tool,
                fmt::format("it answered neither `server/discover` nor `initialize`: {}",
                            reply.failure == RpcFailure::none && !reply.error
                                ? std::string("not an object")
                                : describe(reply)));
  }
  const std::string agreed(string_member(reply.result, "protocolVersion"));
  if (std::find_if(legacy_versions.begin(), legacy_versions.end(), [&](std::string_view legacy) {
        return agreed == legacy;
      }) == legacy_versions.end()) {
    return fail(ErrorKind::tool, fmt::format("it answered `initialize` with protocol version `{}`, "
                                             "which ralph does not speak",
                                             agreed));
  }
  settled.era = Era::legacy;
  settled.version = agreed;
  take_server_info(settled, reply.result.value("serverInfo", Json()));
  channel.set_protocol(Era::legacy, agreed);
  channel.notify("notifications/initialized", Json());
  return settled;
}

} // namespace ralph::mcp
