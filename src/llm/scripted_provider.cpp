#include "ralph/llm/scripted_provider.h"

#include "llm/usage_estimate.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <initializer_list>
#include <sstream>

namespace ralph::llm {
namespace {

// Small enough that a terminal visibly streams, large enough to cost nothing.
constexpr std::size_t k_piece_bytes = 16;

using nlohmann::json;

Error script_error(std::string_view origin, std::string_view what) {
  Error error;
  error.kind = ErrorKind::config;
  error.file = origin;
  error.message = fmt::format("{}: {}", origin, what);
  return error;
}

// The first key of `object` not in `allowed`, if any: typos in a script should not pass silently.
std::optional<std::string> unknown_key(const json& object,
                                       std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (std::string_view name : allowed) {
      known = known || key == name;
    }
    if (!known) {
      return key;
    }
  }
  return std::nullopt;
}

Result<std::string> optional_string(const json& object, const char* key, std::string_view where,
                                    std::string_view origin) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return std::string();
  }
  if (!it->is_string()) {
    return fail(script_error(origin, fmt::format("{}.{}: expected a string", where, key)));
  }
  return it->get<std::string>();
}

Result<ToolCall> parse_tool_call(const json& item, std::string_view where,
                                 std::string_view origin) {
  if (!item.is_object()) {
    return fail(script_error(origin, fmt::format("{}: expected an object", where)));
  }
  if (auto key = unknown_key(item, {"name", "arguments", "id"})) {
    return fail(script_error(origin, fmt::format("{}: unknown key \"{}\"", where, *key)));
  }
  ToolCall call;
  const auto name = item.find("name");
  if (name == item.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return fail(script_error(origin, fmt::format("{}: missing name", where)));
  }
  call.name = name->get<std::string>();
  const auto id = item.find("id");
  if (id != item.end() && id->is_string()) {
    call.id = id->get<std::string>(); // else generated when played
  }
  const auto arguments = item.find("arguments");
  if (arguments == item.end() || arguments->is_null()) {
    call.arguments = "{}";
  } else if (arguments->is_string()) {
    call.arguments = arguments->get<std::string>(); // raw text, possibly invalid on purpose
  } else if (arguments->is_object()) {
    call.arguments = arguments->dump();
  } else {
    return fail(
        script_error(origin, fmt::format("{}.arguments: expected an object or a string", where)));
  }
  return call;
}

Result<ScriptedTurn> parse_turn(const json& item, std::string_view where, std::string_view origin) {
  if (!item.is_object()) {
    return fail(script_error(origin, fmt::format("{}: expected an object", where)));
  }
  if (auto key = unknown_key(item, {"text", "thinking", "tool_calls"})) {
    return fail(script_error(origin, fmt::format("{}: unknown key \"{}\"", where, *key)));
  }
  ScriptedTurn turn;
  TRY_ASSIGN(turn.text, optional_string(item, "text", where, origin));
  TRY_ASSIGN(turn.thinking, optional_string(item, "thinking", where, origin));
  const auto calls = item.find("tool_calls");
  if (calls == item.end() || calls->is_null()) {
    return turn;
  }
  if (!calls->is_array()) {
    return fail(script_error(origin, fmt::format("{}.tool_calls: expected an array", where)));
  }
  for (std::size_t i = 0; i < calls->size(); ++i) {
    TRY_ASSIGN(ToolCall call,
               parse_tool_call((*calls)[i], fmt::format("{}.tool_calls[{}]", where, i), origin));
    turn.tool_calls.push_back(std::move(call));
  }
  return turn;
}

// Delivers `text` in pieces cut on UTF-8 boundaries.
template <typename Deliver> void in_pieces(std::string_view text, Deliver deliver) {
  while (!text.empty()) {
    std::string_view piece = utf8_prefix(text, k_piece_bytes);
    if (piece.empty()) {
      piece = text.substr(0, k_piece_bytes); // not UTF-8 at all: any cut will do
    }
    deliver(piece);
    text.remove_prefix(piece.size());
  }
}

} // namespace

Result<std::unique_ptr<ScriptedProvider>> ScriptedProvider::from_text(std::string_view text,
                                                                      std::string_view origin) {
  auto root = parse_json(text, origin);
  if (!root) {
    Error error = root.error();
    error.kind = ErrorKind::config;
    error.file = origin;
    return fail(std::move(error));
  }
  if (!root->is_object()) {
    return fail(script_error(origin, "expected an object with \"turns\""));
  }
  if (auto key = unknown_key(*root, {"model", "turns", "description"})) {
    return fail(script_error(origin, fmt::format("unknown key \"{}\"", *key)));
  }
  TRY_ASSIGN(std::string model, optional_string(*root, "model", "script", origin));
  const auto turns = root->find("turns");
  if (turns == root->end() || !turns->is_array()) {
    return fail(script_error(origin, "missing \"turns\" (an array of model turns)"));
  }
  std::vector<ScriptedTurn> parsed;
  parsed.reserve(turns->size());
  for (std::size_t i = 0; i < turns->size(); ++i) {
    TRY_ASSIGN(ScriptedTurn turn, parse_turn((*turns)[i], fmt::format("turns[{}]", i), origin));
    parsed.push_back(std::move(turn));
  }
  return std::make_unique<ScriptedProvider>(model.empty() ? "scripted" : std::move(model),
                                            std::move(parsed));
}

Result<std::unique_ptr<ScriptedProvider>>
ScriptedProvider::from_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return fail(script_error(path.string(), "cannot read the script file"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return from_text(text.str(), path.string());
}

ScriptedProvider::ScriptedProvider(std::string model, std::vector<ScriptedTurn> turns)
    : m_model(std::move(model)), m_turns(std::move(turns)) {}

Result<ChatResponse> ScriptedProvider::chat(const ChatRequest& request, StreamObserver* observer,
                                            const CancelToken& cancel) {
  if (cancel.cancelled()) {
    return fail(ErrorKind::cancelled, "scripted: cancelled");
  }
  if (m_next >= m_turns.size()) {
    return fail(ErrorKind::provider,
                fmt::format("scripted model has no turn {} (the script has {})", m_next + 1,
                            m_turns.size()));
  }
  const ScriptedTurn& turn = m_turns[m_next++];

  ChatResponse out;
  out.model = m_model;
  out.message.role = Role::assistant;
  out.message.content = turn.text;
  if (!turn.thinking.empty()) {
    out.message.thinking.push_back(ThinkingBlock{.thinking = turn.thinking});
  }
  std::size_t output_bytes = turn.text.size() + turn.thinking.size();
  for (const ToolCall& scripted : turn.tool_calls) {
    ToolCall call = scripted;
    if (call.id.empty()) {
      call.id = fmt::format("call_{}", m_next_call_id++);
    }
    output_bytes += call.name.size() + call.arguments.size();
    out.message.tool_calls.push_back(std::move(call));
  }
  out.stop_reason = out.message.tool_calls.empty() ? StopReason::end_turn : StopReason::tool_use;
  out.raw_stop_reason = to_string(out.stop_reason);
  out.usage.input_tokens = estimate_tokens(request_bytes(request));
  out.usage.output_tokens = std::max<std::int64_t>(1, estimate_tokens(output_bytes));

  if (observer != nullptr) {
    if (request.stream) {
      in_pieces(turn.thinking, [&](std::string_view part) { observer->on_thinking(part); });
      in_pieces(turn.text, [&](std::string_view part) { observer->on_text(part); });
    } else {
      if (!turn.thinking.empty()) {
        observer->on_thinking(turn.thinking);
      }
      if (!turn.text.empty()) {
        observer->on_text(turn.text);
      }
    }
    for (const ToolCall& call : out.message.tool_calls) {
      observer->on_tool_call(call);
    }
  }
  return out;
}

} // namespace ralph::llm
