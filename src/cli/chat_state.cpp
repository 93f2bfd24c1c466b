#include "cli/chat_state.h"

#include "ralph/core/json.h"
#include "ralph/core/message_json.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::cli {
namespace {

using json = nlohmann::json;

json settings_json(const GoalSettings& settings) {
  json budgets = json::array();
  for (const BudgetChange& change : settings.budgets) {
    budgets.push_back({{"key", change.key}, {"value", change.value}});
  }
  return {{"verify_commands", settings.verify_commands},
          {"judge", settings.judge},
          {"budgets", std::move(budgets)}};
}

GoalSettings settings_from(const json& in) {
  GoalSettings out;
  if (!in.is_object()) {
    return out;
  }
  for (const json& command : in.value("verify_commands", json::array())) {
    if (command.is_string()) {
      out.verify_commands.push_back(command.get<std::string>());
    }
  }
  out.judge = in.value("judge", "");
  for (const json& change : in.value("budgets", json::array())) {
    if (change.is_object()) {
      out.budgets.push_back({change.value("key", ""), change.value("value", "")});
    }
  }
  return out;
}

} // namespace

std::string chat_state_to_json(const ChatState& state) {
  json out = {{"chat", true},
              {"conversation", json::parse(messages_to_json(state.conversation))},
              {"next", settings_json(state.next)}};
  if (state.goal) {
    const ChatGoal& goal = *state.goal;
    out["goal"] = {{"text", goal.text},
                   {"session_id", goal.session_id},
                   {"status", to_string(goal.status)},
                   {"held", goal.held},
                   {"reason", goal.reason},
                   {"settings", settings_json(goal.settings)}};
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<ChatState> chat_state_from_json(std::string_view text, std::string_view what) {
  TRY_ASSIGN(const json parsed, parse_json(text, what));
  if (!parsed.is_object() || !parsed.value("chat", false) || !parsed.contains("conversation")) {
    return fail(ErrorKind::store, fmt::format("{}: not a chat's record", what));
  }
  ChatState state;
  TRY_ASSIGN(state.conversation, messages_from_json(parsed["conversation"].dump(),
                                                    fmt::format("{} conversation", what)));
  state.next = settings_from(parsed.value("next", json::object()));
  if (parsed.contains("goal") && parsed["goal"].is_object()) {
    const json& in = parsed["goal"];
    ChatGoal goal;
    goal.text = in.value("text", "");
    goal.session_id = in.value("session_id", "");
    goal.status = value_of(k_status_names, in.value("status", "active")).value_or(Status::active);
    goal.held = in.value("held", false);
    goal.reason = in.value("reason", "");
    goal.settings = settings_from(in.value("settings", json::object()));
    state.goal = std::move(goal);
  }
  return state;
}

} // namespace ralph::cli
