#pragma once

#include "rpc_channel.h"

#include "ralph/core/error.h"
#include "ralph/mcp/client.h"
#include "ralph/mcp/protocol.h"

#include <chrono>
#include <string>

namespace ralph::mcp {

// What the opening exchange settled.
struct Handshake {
  Era era = Era::unknown;
  std::string version;
  std::string server_name;
  std::string server_version;
};

// ralph as a client names itself (clientInfo).
Json client_info();

// The `_meta` a current-era request carries: its version, who asks, what it can do.
Json modern_meta(const std::string& version);

// Opens a freshly started server: `server/discover` first (a result: modern; -32022: one of the
// older versions it offers; any other error or no answer in half the time left: legacy), then
// `initialize` and `notifications/initialized`. `known` is the era found before (a restart):
// legacy skips the probe. Sets the channel's protocol as it goes. Within `deadline`.
Result<Handshake> handshake(RpcChannel& channel, Era known,
                            std::chrono::steady_clock::time_point deadline);

} // namespace ralph::mcp
