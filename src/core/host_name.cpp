#include "ralph/core/host_name.h"

#include <array>
#include <unistd.h>

namespace ralph {

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) {
    return "";
  }
  return name.data();
}

} // namespace ralph
