#include "ralph/core/status.h"

#include <array>

namespace ralph {
namespace {

constexpr std::array k_names = {
    "active", "completed", "budget_exhausted", "stalled", "blocked", "interrupted", "failed"};

} // namespace

const char* to_string(Status status) {
  return k_names.at(static_cast<std::size_t>(status));
}

std::optional<Status> status_from_string(std::string_view text) {
  for (std::size_t i = 0; i < k_names.size(); ++i) {
    if (text == k_names[i]) {
      return static_cast<Status>(i);
    }
  }
  return std::nullopt;
}

int exit_code(Status status) {
  switch (status) {
  case Status::completed:
    return 0;
  case Status::failed:
    return 1;
  case Status::budget_exhausted:
    return 3;
  case Status::blocked:
    return 4;
  case Status::stalled:
    return 5;
  case Status::interrupted:
    return 130;
  case Status::active:
    return 1; // a session that stopped while still active did not finish
  }
  return 1;
}

} // namespace ralph
