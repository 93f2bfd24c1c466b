#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ralph::cli {

// The lines a mistyped command line gets: one line on stderr naming the mistake, the closest real
// name when one is near, and the help to read. `command` is the command as typed so far
// ("ralph", "ralph sessions", "ralph run"); its help is `command --help`.

// "ralph: unknown command 'rn'; did you mean 'run'? See 'ralph --help'." Without a close name it
// lists `commands`. A command in the design that this version does not have yet ("chat") is
// said to be so.
std::string unknown_command(std::string_view command, std::string_view typed,
                            const std::vector<std::string>& commands);

// "ralph run: unknown option '--modle'; did you mean '--model'? See 'ralph run --help'."
// `typed` may carry "=VALUE", left out of the message.
std::string unknown_option(std::string_view command, std::string_view typed,
                           const std::vector<std::string>& options);

// "ralph run: unexpected argument 'the' (GOAL is one argument: quote it). See 'ralph run
// --help'." `why` (may be empty) goes in the parentheses.
std::string unexpected_argument(std::string_view command, std::string_view argument,
                                std::string_view why);

// "ralph qa: --doc is required. See 'ralph qa --help'."
std::string usage_problem(std::string_view command, std::string_view problem);

} // namespace ralph::cli
