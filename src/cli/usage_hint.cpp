#include "cli/usage_hint.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

namespace ralph::cli {
namespace {

std::string see_help(std::string_view command) {
  return fmt::format("See '{} --help'.", command);
}

} // namespace

std::string unknown_command(std::string_view command, std::string_view typed,
                            const std::vector<std::string>& commands) {
  const std::string suggestion = closest_name(typed, commands);
  if (suggestion.empty()) {
    return fmt::format("{}: unknown command '{}' (commands: {}). {}", command, typed,
                       fmt::join(commands, ", "), see_help(command));
  }
  return fmt::format("{}: unknown command '{}'; did you mean '{}'? {}", command, typed, suggestion,
                     see_help(command));
}

std::string unknown_option(std::string_view command, std::string_view typed,
                           const std::vector<std::string>& options) {
  const std::string_view name = typed.substr(0, typed.find('='));
  const std::string suggestion = closest_name(name, options);
  if (suggestion.empty()) {
    return fmt::format("{}: unknown option '{}'. {}", command, name, see_help(command));
  }
  return fmt::format("{}: unknown option '{}'; did you mean '{}'? {}", command, name, suggestion,
                     see_help(command));
}

std::string unexpected_argument(std::string_view command, std::string_view argument,
                                std::string_view why) {
  if (why.empty()) {
    return fmt::format("{}: unexpected argument '{}'. {}", command, argument, see_help(command));
  }
  return fmt::format("{}: unexpected argument '{}' ({}). {}", command, argument, why,
                     see_help(command));
}

std::string usage_problem(std::string_view command, std::string_view problem) {
  return fmt::format("{}: {}. {}", command, problem, see_help(command));
}

} // namespace ralph::cli
