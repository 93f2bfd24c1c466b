#include "cli/hook_protocol.h"

#include "ralph/core/json.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace ralph::cli {
namespace {

// The string field `key`, "" when absent or null; an error when of another type.
Result<std::string> string_field(const nlohmann::json& payload, const char* key) {
  const auto it = payload.find(key);
  if (it == payload.end() || it->is_null()) {
    return std::string();
  }
  if (!it->is_string()) {
    return fail(ErrorKind::parse,
                fmt::format("hook payload: \"{}\" is a {}, not a string", key, it->type_name()));
  }
  return it->get<std::string>();
}

HookAgent sniff_agent(const nlohmann::json& payload, const std::string& event) {
  if (event == "AfterAgent") {
    return HookAgent::gemini;
  }
  // Codex's Stop payload requires `turn_id`; Claude's has none.
  return payload.contains("turn_id") ? HookAgent::codex : HookAgent::claude;
}

} // namespace

Result<HookPayload> parse_hook_payload(std::string_view text, std::optional<HookAgent> agent) {
  TRY_ASSIGN(const nlohmann::json payload, parse_json(text, "hook payload on stdin"));
  if (!payload.is_object()) {
    return fail(ErrorKind::parse, "hook payload on stdin: not a JSON object");
  }
  TRY_ASSIGN(const std::string event, string_field(payload, "hook_event_name"));
  HookPayload out;
  out.agent = agent ? *agent : sniff_agent(payload, event);
  const char* expected = out.agent == HookAgent::gemini ? "AfterAgent" : "Stop";
  if (!event.empty() && event != expected) {
    return fail(ErrorKind::parse,
                fmt::format("hook payload: hook_event_name is \"{}\"; ralph hook --agent {} "
                            "answers \"{}\" only",
                            event, to_string(out.agent), expected));
  }
  TRY_ASSIGN(out.session_id, string_field(payload, "session_id"));
  if (out.session_id.empty()) {
    return fail(ErrorKind::parse, "hook payload: no session_id");
  }
  TRY_ASSIGN(const std::string cwd, string_field(payload, "cwd"));
  if (cwd.empty()) {
    return fail(ErrorKind::parse, "hook payload: no cwd");
  }
  out.cwd = cwd;
  TRY_ASSIGN(out.answer,
             string_field(payload, out.agent == HookAgent::gemini ? "prompt_response"
                                                                  : "last_assistant_message"));
  TRY_ASSIGN(out.prompt, string_field(payload, "prompt"));
  TRY_ASSIGN(const std::string transcript, string_field(payload, "transcript_path"));
  out.transcript = transcript;
  if (const auto it = payload.find("stop_hook_active"); it != payload.end() && !it->is_null()) {
    if (!it->is_boolean()) {
      return fail(ErrorKind::parse, "hook payload: \"stop_hook_active\" is not a boolean");
    }
    out.stop_hook_active = it->get<bool>();
  }
  return out;
}

std::string last_prompt_in_transcript(const std::filesystem::path& transcript) {
  std::ifstream in(transcript, std::ios::binary);
  std::string prompt;
  for (std::string line; std::getline(in, line);) {
    // Cheap test first: most lines are attachments, requests and assistant turns.
    if (line.find("\"type\":\"user\"") == std::string::npos) {
      continue;
    }
    const auto entry = parse_json(line, "transcript line");
    if (!entry || string_member(*entry, "type") != "user" || bool_member(*entry, "isMeta", false)) {
      continue;
    }
    const nlohmann::json* message = member(*entry, "message");
    const nlohmann::json* found = message == nullptr ? nullptr : member(*message, "content");
    if (found == nullptr) {
      continue;
    }
    const nlohmann::json& content = *found;
    if (content.is_string()) {
      prompt = content.get<std::string>();
      continue;
    }
    if (!content.is_array()) {
      continue;
    }
    // Tool results come back as user entries too; only text blocks are the person's.
    std::string text;
    for (const nlohmann::json& block : content) {
      if (string_member(block, "type") != "text") {
        text.clear();
        break;
      }
      text += string_member(block, "text");
    }
    if (!text.empty()) {
      prompt = std::move(text);
    }
  }
  return prompt;
}

std::string hook_output(HookAgent agent, const HookDecision& decision) {
  nlohmann::json out = nlohmann::json::object();
  if (decision.block) {
    out["decision"] = agent == HookAgent::gemini ? "deny" : "block";
    out["reason"] = decision.reason.empty() ? "ralph: verification failed" : decision.reason;
  }
  if (!decision.message.empty()) {
    out["systemMessage"] = decision.message;
  }
  if (out.empty()) {
    return {};
  }
  // Replaced, not thrown: an answer may end inside a UTF-8 sequence.
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace ralph::cli
