#include "ralph/http/transport.h"

namespace ralph::http {

std::string_view Response::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) {
      return value;
    }
  }
  return {};
}

} // namespace ralph::http
