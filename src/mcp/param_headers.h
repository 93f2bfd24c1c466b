#pragma once

#include "rpc_message.h"

#include "ralph/http/transport.h"

#include <string>
#include <string_view>
#include <vector>

namespace ralph::mcp {

// An argument a current-era tool wants mirrored into an HTTP header (`x-mcp-header` in its input
// schema, SEP-2243), so a gateway can route on it without reading the body.
struct ParamHeader {
  std::string name;              // the header is Mcp-Param-{name}
  std::vector<std::string> path; // where the argument is, property by property
};

// The declarations of a tool's input schema, on properties reached through `properties` alone
// (the only places the spec allows them).
std::vector<ParamHeader> param_headers(const Json& input_schema);

// The Mcp-Param-* headers for `arguments`: one per declaration whose argument is a string,
// number or boolean (absent, null and other values get none).
http::Headers param_header_values(const std::vector<ParamHeader>& declarations,
                                  const Json& arguments);

// A header value as sent: as it is when it is visible ASCII without surrounding spaces, else
// in the spec's `=?base64?…?=` form (UTF-8, Base64).
std::string header_value(std::string_view value);

} // namespace ralph::mcp
