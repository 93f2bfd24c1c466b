#pragma once

#include <string_view>

namespace ralph::docqa {

// Where a model put the JSON object it was asked for: the whole text when it starts with `{`,
// else the body of the last ``` fence, else from the last line opening an object to the last
// closing brace. Empty when there is none.
std::string_view json_object_text(std::string_view text);

} // namespace ralph::docqa
