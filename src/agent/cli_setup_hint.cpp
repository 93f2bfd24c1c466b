#include "agent/cli_setup_hint.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace ralph::agent {
namespace {

// How each CLI's own documentation says to install it (npm packages as pinned in
// tests/agent_clis/package.json).
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> k_installs = {{
    {"claude", "npm install -g @anthropic-ai/claude-code"},
    {"codex", "npm install -g @openai/codex"},
    {"gemini", "npm install -g @google/gemini-cli"},
    {"opencode", "npm install -g opencode-ai"},
    {"aider", "python -m pip install aider-install && aider-install"},
    {"goose", "curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh "
              "| bash"},
}};

// What Claude Code 2.1.330 prints on stderr before exiting 1 when run as root (uid 0) in
// bypassPermissions mode without IS_SANDBOX=1 (read from the CLI itself, tests/agent_clis).
constexpr std::string_view k_claude_as_root =
    "--dangerously-skip-permissions cannot be used with root/sudo privileges";

} // namespace

std::string install_hint(std::string_view program) {
  const std::size_t slash = program.rfind('/');
  const std::string_view name =
      slash == std::string_view::npos ? program : program.substr(slash + 1);
  for (const auto& [cli, command] : k_installs) {
    if (name == cli) {
      return fmt::format("is it installed and on PATH? install it with `{}`", command);
    }
  }
  return fmt::format("is `{}` installed and on PATH?", program);
}

std::string setup_hint(std::string_view stderr_text) {
  if (stderr_text.find(k_claude_as_root) != std::string_view::npos) {
    return "Claude Code refuses bypassPermissions as root: on a sandbox (a container or VM) set "
           "IS_SANDBOX=1 in ralph's environment, or run ralph as another user";
  }
  return {};
}

} // namespace ralph::agent
