#pragma once

#include "ralph/core/error.h"
#include "ralph/core/message.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ralph {

// Messages as a JSON array, for records on disk: [{"role", "content", "tool_calls"?: [{"id",
// "name", "arguments"}], "thinking"?: [{"thinking", "signature", "redacted", "data"}],
// "tool_call_id"?, "tool_name"?, "is_error"?}]. Tool-call arguments stay the raw text the model
// produced. Invalid UTF-8 is replaced, never thrown on.
std::string messages_to_json(std::span<const Message> messages);

// The inverse; a malformed document is an ErrorKind::parse error naming `what`.
Result<std::vector<Message>> messages_from_json(std::string_view json, std::string_view what);

} // namespace ralph
