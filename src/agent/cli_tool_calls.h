#pragma once

#include "ralph/agent/cli_stream.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::agent {

// The tool calls a stream reported as started and not yet finished, by id. It keeps the promise
// the formats with start events make to the caller: every CliToolFinished follows a
// CliToolStarted with the same id. A finish whose start the CLI never printed (Codex reports some
// file changes only on completion; a result for an id never seen) gets its start emitted first.
class OpenToolCalls {
public:
  // Emits CliToolStarted and remembers the call.
  void start(ToolCall call, std::vector<CliEvent>& out);
  // Emits CliToolFinished for the call `id`, named and with arguments as it started when it did
  // (else as `fallback` says, after a CliToolStarted for it), and forgets it.
  void finish(const std::string& id, const ToolCall& fallback, std::string output, bool is_error,
              std::optional<int> exit_code, std::vector<CliEvent>& out);
  // The call `id` as it started, while it is open; else null.
  const ToolCall* find(std::string_view id) const;

private:
  std::map<std::string, ToolCall, std::less<>> m_open;
};

} // namespace ralph::agent
