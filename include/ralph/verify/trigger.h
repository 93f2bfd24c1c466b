#pragma once

#include "ralph/core/settings.h"

#include <string>
#include <string_view>

namespace ralph::verify {

struct TriggerDecision {
  bool verify = false;
  std::string reason; // why, for the record: "keyword \"done\"", "no keyword in the answer", ...
};

// Whether `answer` is to be verified under `settings`; `marker` is the run's completion marker
// (the `marker` trigger), `heartbeat` whether this is a heartbeat run.
TriggerDecision decide_trigger(const TriggerSettings& settings, std::string_view marker,
                               std::string_view answer, bool heartbeat);

// Case-insensitive. A single word (letters, digits, `_`, `-`) must stand as a whole word
// ("done" is not in "abandoned"); a phrase or anything with other characters ("here you go",
// "c++", "[ok]") is matched literally.
bool contains_keyword(std::string_view text, std::string_view keyword);

} // namespace ralph::verify
