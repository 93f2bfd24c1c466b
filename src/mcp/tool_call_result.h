#pragma once

#include "rpc_message.h"

#include "ralph/mcp/client.h"

namespace ralph::mcp {

// The model's view of a tools/call result: its structured content as JSON when it has one and
// is no error, else its text contents joined by newlines, with a placeholder line for each
// image, audio, resource or link (the model gets no binary data).
CallResult tool_call_result(const Json& result);

} // namespace ralph::mcp
