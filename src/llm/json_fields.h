#pragma once

#include <string>

namespace ralph::llm {

// Tool arguments as the model sent them; all-whitespace (some servers send "" for a tool
// without parameters) becomes "{}".
std::string arguments_or_empty_object(std::string arguments);

} // namespace ralph::llm
