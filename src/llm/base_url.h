#pragma once

#include <string>
#include <string_view>

namespace ralph::llm {

// `base` without trailing slashes, then `path` (which starts with '/').
std::string join_url(std::string_view base, std::string_view path);

// True when `base` ends with a version segment such as "/v1" (trailing slashes ignored).
bool ends_with_version(std::string_view base);

} // namespace ralph::llm
