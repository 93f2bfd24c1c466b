#pragma once

#include <string>
#include <string_view>

namespace ralph::verify {

// What an answer says about completion.
struct MarkerScan {
  // The last non-empty line of the answer is the marker and nothing else. A marker elsewhere (in
  // a sentence, an echo of the instructions, a quoted example) is not a claim.
  bool claimed = false;
  // The answer with every occurrence of the marker removed: what the user sees.
  std::string visible;
};

// Finds the completion marker (e.g. "<promise>DONE</promise>") in `answer`, ignoring case and
// whitespace (`< promise > done </promise>` matches). An empty marker never matches.
MarkerScan scan_completion_marker(std::string_view answer, std::string_view marker);

// The line the agent is told to end a finished answer with, and why; appended to its system
// prompt in verifier-first runs.
std::string completion_instructions(std::string_view marker);

} // namespace ralph::verify
