#pragma once

#include "ralph/llm/provider.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace ralph::llm {

// Appends `text` as a JSON string literal, quotes included. Bytes that are not valid UTF-8 become
// U+FFFD, so tool output of any kind yields a valid request body.
void append_json_string(std::string& out, std::string_view text);

// Appends `text` unchanged when it is one JSON object within parse_json's limits (nesting,
// numbers), else `{}`: for tool arguments that the wire format requires as an object although
// the model may have produced anything.
void append_json_object_or_empty(std::string& out, std::string_view text);

// About how many bytes `request` takes as a JSON body, a little over rather than under: what the
// request builders reserve, so a long conversation is not copied as it grows.
std::size_t estimated_body_size(const ChatRequest& request);

} // namespace ralph::llm
