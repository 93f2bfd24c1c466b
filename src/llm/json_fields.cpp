#include "llm/json_fields.h"

#include "ralph/core/json.h"

namespace ralph::llm {

std::string arguments_or_empty_object(std::string arguments) {
  if (arguments.find_first_not_of(" \t\r\n") == std::string::npos) {
    return "{}";
  }
  return arguments;
}

} // namespace ralph::llm
