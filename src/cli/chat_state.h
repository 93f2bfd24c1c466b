#pragma once

#include "cli/slash_command.h"

#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/core/status.h"

#include <string>
#include <string_view>
#include <vector>

namespace ralph::cli {

// What a chat adds to the configured verifiers and budgets for a goal.
struct GoalSettings {
  std::vector<std::string> verify_commands; // /verify CMD, in order
  std::string judge;                        // /judge MODEL; empty: the configured judge
  std::vector<BudgetChange> budgets;        // /budget changes, in order (later ones win)
  bool empty() const { return verify_commands.empty() && judge.empty() && budgets.empty(); }
};

// The goal a chat works on.
struct ChatGoal {
  std::string text;
  std::string session_id;         // its own session (kind goal); empty until its first attempt
  Status status = Status::active; // active until it ends
  bool held = false;              // paused (/pause, /stop, Ctrl-C): waits for /resume
  std::string reason;             // why it ended or was held, one line
  GoalSettings settings;
};

// Everything a chat carries between turns: what the agent has been told and answered, the goal,
// and what was added for the next goal before there was one. Recorded as the chat session's
// resume point, so `ralph chat --resume ID` goes on from it.
struct ChatState {
  std::vector<Message> conversation;
  std::optional<ChatGoal> goal; // the current goal, running, held or just ended
  GoalSettings next;            // /verify, /judge, /budget given while no goal was active
};

std::string chat_state_to_json(const ChatState& state);
// `what` names the record in errors ("chat 2026…").
Result<ChatState> chat_state_from_json(std::string_view json, std::string_view what);

} // namespace ralph::cli
