#pragma once

#include <string>

namespace ralph {

// What the model is told about a tool. `parameters` is a JSON Schema object as JSON text.
struct ToolSpec {
  std::string name;
  std::string description;
  std::string parameters = R"({"type":"object","properties":{}})";
};

} // namespace ralph
