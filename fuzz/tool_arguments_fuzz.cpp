// Tool-call arguments as a model may send them: parsing never throws, deep nesting and numbers
// no double holds are errors for the model (kind `tool`), and every getter copes or says why.
#include "fuzz_support.h"
#include "tools/arguments.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ralph;
  const std::string_view text = fuzz::as_text(data, size);
  auto arguments = tools::Arguments::parse(text);
  if (!arguments) {
    fuzz::check(arguments.error().kind == ErrorKind::tool, "an argument error not for the model");
    return 0;
  }
  for (const char* key : {"path", "command", "content", "limit", "offset", "recursive"}) {
    const auto as_string = arguments->string(key);
    const auto as_integer = arguments->integer(key);
    const auto as_number = arguments->number(key);
    const auto as_boolean = arguments->boolean(key);
    for (const Error* error :
         {as_string ? nullptr : &as_string.error(), as_integer ? nullptr : &as_integer.error(),
          as_number ? nullptr : &as_number.error(), as_boolean ? nullptr : &as_boolean.error()}) {
      fuzz::check(error == nullptr || error->kind == ErrorKind::tool,
                  "a getter error of another kind");
    }
  }
  // What was accepted is within the bounds parse_json promises, so printing it is safe.
  const auto value = parse_json(text, "arguments");
  if (value) {
    (void)value->dump();
  }
  return 0;
}
