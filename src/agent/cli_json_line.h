#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace ralph::agent {

// One line of a CLI's JSON-lines stdout as an object, or nullopt for the lines a JSON format
// skips without complaint: blank ones, ones not starting with '{' (debug text that landed on
// stdout), malformed or non-object JSON. A trailing '\r' (CRLF output) is ignored. Never throws
// (but std::bad_alloc); nesting is bounded by parse_json().
std::optional<nlohmann::json> cli_json_line(std::string_view line);

// A JSON value as compact text (tool arguments); never throws on odd strings.
std::string json_text(const nlohmann::json& value);

// The member `key` as a number, or nullopt when absent or not a number.
std::optional<double> number_member(const nlohmann::json& value, const char* key);

// The member `key` as a process exit code: an integer within int's range, else nullopt.
std::optional<int> exit_code_member(const nlohmann::json& value, const char* key);

// The text a tool result or message content holds: the string itself, or the `text` of the
// `{type:"text"}` blocks of an array joined by newlines; empty for anything else.
std::string content_text(const nlohmann::json& content);

} // namespace ralph::agent
