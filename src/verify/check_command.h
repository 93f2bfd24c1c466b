#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Which shell command lines ran a check, for the evidence verifier: a line counts only when its
// exit status is the check's own, so it is parsed into words, never searched for a substring.
namespace ralph::verify {

// One token of a shell command line: a word (quotes removed) or an operator (`&&`, `||`, `;`,
// `|`, `&`, `(`, `)`, a redirection, `2>&1`).
struct ShellToken {
  std::string text;
  bool is_operator = false;
  bool operator==(const ShellToken&) const = default;
};

// Splits `line` as /bin/sh would into words and operators (single and double quotes, backslash
// escapes). A `$(`, a backtick or an unclosed quote makes the line opaque: nullopt.
std::optional<std::vector<ShellToken>> tokenize_shell(std::string_view line);

// The tokens of the command `line` runs when its exit status is that command's: `line` without
// leading `cd DIR &&` steps and `NAME=value` assignments and without a trailing `2>&1`, and the
// line inside `bash -lc '…'` / `sh -c '…'`. nullopt when `line` cannot be tokenised.
std::optional<std::vector<ShellToken>> checked_tokens(std::string_view line);

// The line `line` has a shell run (`bash -lc 'LINE'` -> LINE), else `line` itself: what a person
// reads as the command.
std::string inner_command_line(std::string_view line);

// True when `line` runs `command` itself (same words, in order), perhaps after `cd DIR &&`, with
// variable assignments, or with `2>&1`; `echo 'sh test.sh'` or `sh test.sh || true` do not.
bool runs_command(std::string_view line, std::string_view command);

// True when the command `line` runs is one simple command (no `;`, `|`, `||`, `&&` after the
// `cd` steps, `&` or redirection that would hide its status) whose words, joined by single
// spaces, match `pattern` (fnmatch: `*` and `?` match any characters, `/` and spaces included).
bool matches_check_pattern(std::string_view line, std::string_view pattern);

} // namespace ralph::verify
