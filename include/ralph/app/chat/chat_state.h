#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/core/status.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::app {

// What a chat adds to the configured verifiers and budgets for a goal.
struct GoalSettings {
  std::vector<std::string> verify_commands; // /verify CMD, in order
  std::string judge;                        // /judge MODEL; empty: the configured judge
  // Budget keys ("loop.max_iterations", ...) in the order they were changed (later ones win);
  // `flag` names where they came from in errors ("/budget").
  std::vector<ConfigOverride> budgets;
  bool empty() const { return verify_commands.empty() && judge.empty() && budgets.empty(); }
};

// The goal a chat works on.
struct ChatGoal {
  std::string text;
  std::string session_id;         // its own session (kind goal); empty until its first attempt
  Status status = Status::active; // active until it ends
  bool held = false;              // paused (/pause, /stop, Ctrl-C): waits for release_hold
  std::string reason;             // why it ended or was held, one line
  GoalSettings settings;
};

// Everything a chat carries between turns: what the agent has been told and answered, the goal,
// and what was added for the next goal before there was one. Recorded as the chat session's
// resume point, so a chat opened again by its id goes on from it.
struct ChatState {
  std::vector<Message> conversation;
  std::optional<ChatGoal> goal; // the current goal, running, held or just ended
  GoalSettings next;            // added while no goal was active: for the next one
};

std::string chat_state_to_json(const ChatState& state);
// `what` names the record in errors ("chat 2026…"). Fields of the wrong type read as absent.
Result<ChatState> chat_state_from_json(std::string_view json, std::string_view what);

} // namespace ralph::app
