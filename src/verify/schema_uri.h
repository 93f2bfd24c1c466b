#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

// URI references as JSON Schema's $id and $ref use them (RFC 3986), for JsonSchema's compiler.
namespace ralph::verify {

// The five parts of RFC 3986 appendix B; an absent part differs from an empty one.
struct UriParts {
  std::optional<std::string> scheme;
  std::optional<std::string> authority;
  std::string path;
  std::optional<std::string> query;
  std::optional<std::string> fragment;
};

// `text` split into its parts, the way appendix B's regular expression does.
UriParts parse_uri(std::string_view text);

// `reference` resolved against `base` (RFC 3986 section 5.2). An empty base leaves a relative
// reference as it is, so a schema without $id still resolves "#/definitions/x" to itself.
std::string resolve_uri(std::string_view base, std::string_view reference);

// "http://x/y#frag" -> {"http://x/y", "frag"}; no '#' gives an empty fragment.
std::pair<std::string, std::string> split_fragment(std::string_view uri);

// `text` with each %XX replaced by its byte; nullopt when a '%' is not followed by two hex digits.
std::optional<std::string> percent_decode(std::string_view text);

} // namespace ralph::verify
