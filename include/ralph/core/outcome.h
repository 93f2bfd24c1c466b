#pragma once

#include "ralph/core/enum_names.h"

namespace ralph {

// A verdict's result: the check passed, failed, or could not be made (`error`: not runnable,
// timed out, malformed output; never a judgement of the answer).
enum class Outcome { pass, fail, error };
inline constexpr EnumName<Outcome> k_outcome_names[] = {
    {Outcome::pass, "pass"}, {Outcome::fail, "fail"}, {Outcome::error, "error"}};

inline const char* to_string(Outcome value) {
  return name_of(k_outcome_names, value);
}

} // namespace ralph
