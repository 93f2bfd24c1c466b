#pragma once

#include <string>
#include <string_view>
#include <vector>

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

// Removes the marker from text that arrives in pieces (the model's streamed text), as
// scan_completion_marker removes it from a whole answer: the end of a piece that may be the start
// of the marker is held back until the next piece tells. Not thread-safe.
class MarkerFilter {
public:
  // An empty marker filters nothing.
  explicit MarkerFilter(std::string marker);

  // What can be shown now of the text held back and `piece`.
  std::string feed(std::string_view piece);
  // The text held back, once no more follows: it was not the marker.
  std::string flush();

private:
  std::string m_marker;
  std::string m_held;
};

// The line the agent is told to end a finished answer with, and why; appended to its system
// prompt in verifier-first runs.
std::string completion_instructions(std::string_view marker);

// The prompt a `/goal TEXT` gives the agent (seed 004's template): the objective, the cycle Plan ->
// Act -> Verify -> Reflect -> Retry, the strongest applicable verifier (the checks ralph runs
// itself named in `checks`), `instructions` on how to verify this goal, and the completion rule.
std::string goal_prompt(std::string_view goal, std::string_view marker,
                        const std::vector<std::string>& checks, std::string_view instructions);

} // namespace ralph::verify
