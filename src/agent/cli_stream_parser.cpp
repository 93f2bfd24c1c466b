#include "agent/aider_stream.h"
#include "agent/claude_stream.h"
#include "agent/codex_stream.h"
#include "agent/gemini_stream.h"
#include "agent/goose_stream.h"
#include "agent/opencode_stream.h"
#include "agent/text_stream.h"

#include "ralph/agent/cli_stream.h"

namespace ralph::agent {

std::unique_ptr<CliStreamParser> make_cli_stream_parser(CliFormat format) {
  switch (format) {
  case CliFormat::claude:
    return std::make_unique<ClaudeStream>();
  case CliFormat::codex:
    return std::make_unique<CodexStream>();
  case CliFormat::gemini:
    return std::make_unique<GeminiStream>();
  case CliFormat::goose:
    return std::make_unique<GooseStream>();
  case CliFormat::opencode:
    return std::make_unique<OpencodeStream>();
  case CliFormat::aider:
    return std::make_unique<AiderStream>();
  case CliFormat::text:
    break;
  }
  return std::make_unique<TextStream>();
}

bool reports_exit_codes(CliFormat format) {
  return format == CliFormat::claude || format == CliFormat::codex || format == CliFormat::opencode;
}

} // namespace ralph::agent
