#pragma once

#include "ralph/core/error.h"
#include "ralph/verify/attempt.h"

#include <cstddef>
#include <span>
#include <string>

namespace ralph::verify {

// One user rules file (AGENTS.md, SOUL.md, HEARTBEAT.md) as read from the workspace.
struct JudgeRulesFile {
  std::string name;     // file name as shown to the judge, e.g. "AGENTS.md"
  std::string content;  // the file, or a prefix of it when `size` is larger
  std::size_t size = 0; // the whole file's size in bytes
  std::string error;    // non-empty: the file exists but could not be read (why)
};

// Budgets of the judge's prompt. Every size counts bytes of UTF-8 text ("chars").
struct JudgeContextOptions {
  std::size_t context_chars = 32000;   // system + user text together; never exceeded
  std::size_t answer_chars = 12000;    // the answer's tail is trimmed past this
  std::size_t min_answer_chars = 1000; // below this (or the whole answer) the request is refused
  std::size_t rules_chars = 8000;      // all rules files together
  std::size_t feedback_chars = 4000;   // all previous feedback together
  int history_turns = 5;               // most recent turns considered for the history
  bool structured = true;              // which output format the instructions ask for
};

// The judge's prompt, and what had to be left out to fit it.
struct JudgeContext {
  std::string system; // instructions and rubric
  std::string user;   // request, rules, history, metadata, previous feedback, answer last
  int history_turns_omitted = 0;
  std::size_t answer_chars_trimmed = 0;
};

// Assembles the judge's prompt from `attempt` and its `rules` files (the caller reads them; a
// HEARTBEAT.md is left out unless attempt.heartbeat). Sections in order, against "lost in the
// middle": request (never trimmed), user rules (capped, cuts noted), history before the answer
// (oldest whole turns dropped first, count noted; tool calls summarised), execution metadata of
// this attempt (never trimmed), previous feedback (oldest dropped first), the answer last (tail
// trimmed with a marker). When the budget is tight it trims history, then rules, then feedback,
// then the answer's tail, in that order. system.size() + user.size() never exceeds
// options.context_chars: when instructions, request, metadata and a minimal answer cannot fit,
// returns an error (kind usage) instead. Input text that is not valid UTF-8 is repaired and
// every cut lands on a UTF-8 boundary. Pure: no I/O.
Result<JudgeContext> assemble_judge_context(const Attempt& attempt,
                                            std::span<const JudgeRulesFile> rules,
                                            const JudgeContextOptions& options);

} // namespace ralph::verify
