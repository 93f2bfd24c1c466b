#pragma once

#include <string>
#include <string_view>

// The `format` values JsonSchema checks: draft 7's formats but idn-hostname (which needs the
// IDNA tables), plus uuid.
namespace ralph::verify {

// Whether ralph checks strings of format `name`; a schema naming another format is refused.
bool is_checked_format(std::string_view name);

// The names is_checked_format accepts, comma separated, for messages.
std::string checked_formats();

// Whether `text` is a string of format `name` (one is_checked_format accepts). Dates and times
// follow RFC 3339, hostnames RFC 1123, URIs RFC 3986 (IRIs also take any non-ASCII character),
// URI templates RFC 6570, JSON pointers RFC 6901, regex means "RE2 compiles it", email takes a
// dot-atom local part (no quoted strings).
bool matches_format(std::string_view name, std::string_view text);

} // namespace ralph::verify
