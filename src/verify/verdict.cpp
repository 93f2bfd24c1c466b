#include "ralph/verify/verdict.h"

namespace ralph::verify {

const char* to_string(Outcome outcome) {
  switch (outcome) {
  case Outcome::pass:
    return "pass";
  case Outcome::fail:
    return "fail";
  case Outcome::error:
    return "error";
  }
  return "error";
}

} // namespace ralph::verify
