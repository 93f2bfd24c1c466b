#include "ralph/core/status.h"

namespace ralph {

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
