#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ralph::verify {

enum class TriggerMode {
  always,    // every final answer is verified
  keywords,  // only answers containing one of the keywords
  marker,    // only answers that claim completion with the marker
  heartbeat, // only heartbeat runs (periodic check-ins), all of them
};

struct TriggerOptions {
  TriggerMode mode = TriggerMode::always;
  std::vector<std::string> keywords{"done", "completed", "finished", "ready", "here you go"};
  // Heartbeat runs are verified whatever the mode (seed 002's verifyHeartbeat); without it they
  // are verified only in `heartbeat` mode.
  bool verify_heartbeat = false;
  std::string marker = "<promise>DONE</promise>";
};

struct TriggerDecision {
  bool verify = false;
  std::string reason; // why, for the record: "keyword \"done\"", "no keyword in the answer", ...
};

TriggerDecision decide_trigger(const TriggerOptions& options, std::string_view answer,
                               bool heartbeat);

// Case-insensitive. A single word (letters, digits, `_`, `-`) must stand as a whole word
// ("done" is not in "abandoned"); a phrase or anything with other characters ("here you go",
// "c++", "[ok]") is matched literally.
bool contains_keyword(std::string_view text, std::string_view keyword);

const char* to_string(TriggerMode mode);

} // namespace ralph::verify
