#pragma once

#include "ralph/core/message.h"
#include "ralph/core/settings.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ralph::agent {

// What a CLI reported, one fact at a time, in the order it printed them.

// Assistant text: a whole block, or (delta) a piece of one that goes on in the next CliText.
struct CliText {
  std::string text;
  bool delta = false;
};
// A tool call the agent started (`arguments` is JSON text). Formats that report a call only
// when it finished give no CliToolStarted for it.
struct CliToolStarted {
  ToolCall call;
};
// A tool call that finished: its output as the CLI showed it, whether it failed, and the shell's
// exit code where the format reports one structurally (Codex, opencode); never guessed from text.
struct CliToolFinished {
  ToolCall call;
  std::string output;
  bool is_error = false;
  std::optional<int> exit_code;
};
// Tokens and cost of this process so far (replacing any earlier CliUsage of the same process).
// `thread_total`: the counts are the CLI session's running total, earlier processes that resumed
// it included (Codex), so the caller subtracts what it already counted.
struct CliUsage {
  Usage usage;
  std::optional<double> cost_usd;
  bool thread_total = false;
};
// The CLI's own session (thread) id, for resuming it; and the model it runs when it says so.
struct CliSession {
  std::string id;
  std::string model;
};
// A non-fatal error or warning the CLI reported (a retried stream error, a loop warning).
struct CliNotice {
  std::string text;
};
// The terminal event: how the run ended by the CLI's own account. `answer` is the final
// assistant text when the format has one there; `error` says why a failed run failed.
// `usage_limit`: the run failed because the plan's usage limit is reached, which resets at
// `resets_at` when the CLI said.
struct CliResult {
  bool ok = false;
  std::string answer;
  std::string error;
  bool usage_limit = false;
  std::optional<std::chrono::system_clock::time_point> resets_at;
};
using CliEvent = std::variant<CliText, CliToolStarted, CliToolFinished, CliUsage, CliSession,
                              CliNotice, CliResult>;

// Turns one CLI's stdout into facts. Lines come without their newline, blank and non-JSON lines
// included (JSON formats skip them; they are never an error); a line may be megabytes long. A
// parser keeps what it needs across lines (a Claude tool call waits for its result, opencode sums
// its steps). Not thread-safe; one per process run.
class CliStreamParser {
public:
  virtual ~CliStreamParser() = default;
  // The facts of one line, appended to `out`.
  virtual void parse_line(std::string_view line, std::vector<CliEvent>& out) = 0;
  // End of stdout: facts only the whole output gives (aider's and plain text's answer, the sum
  // of the steps), appended to `out`. A format with a terminal event adds no CliResult here:
  // its absence is for the caller to judge.
  virtual void finish(std::vector<CliEvent>& out) = 0;
};

std::unique_ptr<CliStreamParser> make_cli_stream_parser(CliFormat format);

// True when the format's parser gives the exit codes of the commands the CLI ran (Claude Code's
// implied by its Bash results, Codex's and opencode's as fields); Gemini CLI and goose put them
// only in display text, aider and plain text run no tools of their own that ralph sees.
bool reports_exit_codes(CliFormat format);

} // namespace ralph::agent
