#include "ralph/app/chat/chat_state.h"

#include "ralph/core/json.h"
#include "ralph/core/message_json.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::app {
namespace {

using json = nlohmann::json;

json settings_json(const GoalSettings& settings) {
  json budgets = json::array();
  for (const ConfigOverride& change : settings.budgets) {
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
  for (const json& command : array_member(in, "verify_commands")) {
    if (command.is_string()) {
      out.verify_commands.push_back(command.get<std::string>());
    }
  }
  out.judge = string_member(in, "judge");
  for (const json& change : array_member(in, "budgets")) {
    if (change.is_object()) {
      out.budgets.push_back({.key = std::string(string_member(change, "key")),
                             .value = std::string(string_member(change, "value")),
                             .flag = "/budget"});
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
  if (!parsed.is_object() || !bool_member(parsed, "chat", false) ||
      !parsed.contains("conversation")) {
    return fail(ErrorKind::store, fmt::format("{}: not a chat's record", what));
  }
  ChatState state;
  TRY_ASSIGN(state.conversation, messages_from_json(parsed["conversation"].dump(),
                                                    fmt::format("{} conversation", what)));
  state.next = settings_from(parsed.value("next", json::object()));
  if (parsed.contains("goal") && parsed["goal"].is_object()) {
    const json& in = parsed["goal"];
    ChatGoal goal;
    goal.text = string_member(in, "text");
    goal.session_id = string_member(in, "session_id");
    goal.status = value_of(k_status_names, string_member(in, "status")).value_or(Status::active);
    goal.held = bool_member(in, "held", false);
    goal.reason = string_member(in, "reason");
    goal.settings = settings_from(in.value("settings", json::object()));
    state.goal = std::move(goal);
  }
  return state;
}

} // namespace ralph::app
