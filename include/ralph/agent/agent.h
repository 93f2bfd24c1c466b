#pragma once

#include "ralph/agent/attempt_observer.h"
#include "ralph/core/cancel.h"
#include "ralph/core/enum_names.h"
#include "ralph/core/error.h"
#include "ralph/core/event.h"
#include "ralph/core/message.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ralph::agent {

// Why an attempt ended.
enum class AgentStop {
  answered,  // the model gave a final answer (no more tool calls)
  max_steps, // the step budget ran out while the model still wanted tools
  cancelled, // the CancelToken fired
  failed,    // the model could not be reached or answered with an error
};
inline constexpr EnumName<AgentStop> k_agent_stop_names[] = {{AgentStop::answered, "answered"},
                                                             {AgentStop::max_steps, "max_steps"},
                                                             {AgentStop::cancelled, "cancelled"},
                                                             {AgentStop::failed, "failed"}};
inline const char* to_string(AgentStop stop) {
  return name_of(k_agent_stop_names, stop);
}

// The agent's plan stopped it: its usage limit is reached. Not a fault of the attempt: the loop
// waits until `resets_at` (when the CLI said, and the time budget allows) and runs it again.
struct UsageLimit {
  std::string agent;   // the CLI as people call it: "Claude Code", "Codex"
  std::string message; // the CLI's own words
  std::optional<std::chrono::system_clock::time_point> resets_at;
};

// What one attempt produced. The conversation itself is updated in place.
struct AgentOutcome {
  AgentStop stop = AgentStop::failed;
  std::string answer;         // the last assistant text (possibly empty)
  int steps = 0;              // model calls made
  int tool_calls = 0;         // tool calls run
  Usage usage;                // tokens of this attempt's model calls
  std::optional<Error> error; // set when stop is failed or cancelled
  std::string agent_session;  // an external agent CLI's own session id, when it reported one
  std::optional<UsageLimit> usage_limit; // set (with stop failed) when the plan's limit stopped it
};

// An inner loop that works on a conversation until it has an answer. The outer loop knows
// agents only through this interface, so library users can plug in their own.
class Agent {
public:
  virtual ~Agent() = default;
  // Runs one attempt. `conversation` holds the goal and anything said since (feedback); the
  // agent appends every assistant and tool message it produces, and leaves the conversation
  // valid for the provider even when stopped early (every tool call gets a result). Each model
  // call and tool call is reported to `observer` as it returns (the loop shows those too);
  // `events` takes what is only shown: streamed text, tool starts, retries, warnings. Both are
  // called from the calling thread.
  virtual AgentOutcome run(std::vector<Message>& conversation, const CancelToken& cancel,
                           AttemptObserver& observer, EventSink& events) = 0;
};

} // namespace ralph::agent
