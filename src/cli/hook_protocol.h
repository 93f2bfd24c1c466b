#pragma once

// What each agent CLI sends a Stop hook on stdin and what it reads back on stdout: Claude Code
// and Codex `Stop`, Gemini CLI `AfterAgent` (docs: agent-cli-formats.md 1.4, 2.3, 3.3).

#include "ralph/core/enum_names.h"
#include "ralph/core/error.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::cli {

enum class HookAgent { claude, codex, gemini };
inline constexpr EnumName<HookAgent> k_hook_agent_names[] = {
    {HookAgent::claude, "claude"}, {HookAgent::codex, "codex"}, {HookAgent::gemini, "gemini"}};
inline const char* to_string(HookAgent agent) {
  return name_of(k_hook_agent_names, agent);
}

// One stop of the agent, as its payload said.
struct HookPayload {
  HookAgent agent = HookAgent::claude;
  std::string session_id;           // the agent's own session id
  std::filesystem::path cwd;        // the session's working directory: the workspace
  std::string answer;               // last_assistant_message (Gemini: prompt_response)
  std::string prompt;               // Gemini's `prompt`; empty for the others
  std::filesystem::path transcript; // transcript_path; may be empty
  bool stop_hook_active = false;    // this stop follows a hook's block
};

// Parses the payload. `agent` is the --agent flag; without it the CLI is told from the payload
// (`AfterAgent` is Gemini's, a `turn_id` Codex's, any other `Stop` Claude's). A parse error
// (`ErrorKind::parse`) says which field is missing or of the wrong type.
Result<HookPayload> parse_hook_payload(std::string_view text, std::optional<HookAgent> agent);

// The person's latest prompt in a Claude Code transcript (JSONL: `user` entries that are not
// meta and hold text, not tool results); empty when there is none or the file cannot be read.
// Transcripts are written asynchronously, so this is a best effort.
std::string last_prompt_in_transcript(const std::filesystem::path& transcript);

// What the hook tells the agent.
struct HookDecision {
  bool block = false;
  std::string reason;  // block: what the agent is told to do next
  std::string message; // shown to the person (systemMessage); may be empty
};

// The exact stdout of the hook for `agent` (exit 0): empty to let the stop through silently,
// else one JSON object and a newline. Claude and Codex block with {"decision":"block"}, Gemini
// with {"decision":"deny"}; an empty block reason is replaced, since Codex takes it as an error.
std::string hook_output(HookAgent agent, const HookDecision& decision);

} // namespace ralph::cli
