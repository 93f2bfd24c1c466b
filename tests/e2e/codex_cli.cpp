#include "codex_cli.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace ralph::testing {

std::optional<std::filesystem::path> codex_binary() {
  std::filesystem::path binary = agent_clis_dir() / "codex";
  std::error_code error;
  if (!std::filesystem::exists(binary, error)) {
    return std::nullopt;
  }
  return binary;
}

CodexHome write_codex_home(const std::filesystem::path& root, const std::string& base_url) {
  CodexHome out;
  out.home = root / "home";
  out.codex_home = out.home / ".codex";
  std::filesystem::create_directories(out.codex_home);
  // TOML basic strings take the same escapes as JSON for what a URL can hold.
  const std::string url = nlohmann::json(base_url + "/v1").dump();
  std::ofstream config(out.codex_home / "config.toml");
  config << "model = \"" << k_codex_model << "\"\n"
         << "model_provider = \"" << k_codex_provider << "\"\n"
         << "\n[model_providers." << k_codex_provider << "]\n"
         << "name = \"ralph fake provider\"\n"
         << "base_url = " << url << "\n"
         << "wire_api = \"responses\"\n"
         << "env_key = \"" << k_codex_key_variable
         << "\"\n"
         // One try: a fault the test did not script must fail at once, not after backoffs.
         << "request_max_retries = 0\n"
         << "stream_max_retries = 0\n";
  if (!config) {
    throw std::runtime_error("cannot write " + (out.codex_home / "config.toml").string());
  }
  out.env = {{"HOME", out.home.string()},
             {"CODEX_HOME", out.codex_home.string()},
             {"XDG_CONFIG_HOME", (out.home / ".config").string()},
             {"XDG_DATA_HOME", (out.home / ".local" / "share").string()},
             {"XDG_STATE_HOME", (out.home / ".local" / "state").string()},
             {"XDG_CACHE_HOME", (out.home / ".cache").string()},
             {k_codex_key_variable, "sk-fake-codex"},
             // A developer's real credentials must never reach a test.
             {"OPENAI_API_KEY", ""},
             {"CODEX_API_KEY", ""},
             {"OPENAI_BASE_URL", ""}};
  return out;
}

std::vector<std::string> codex_exec_argv(const std::filesystem::path& binary,
                                         const std::filesystem::path& workspace,
                                         const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {
      binary.string(),         "exec", "--json",          "--sandbox", "workspace-write",
      "--skip-git-repo-check", "-C",   workspace.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.emplace_back("-");
  return argv;
}

FakeTurn codex_shell_turn(const std::string& command) {
  FakeTurn turn;
  turn.tool_calls.push_back(
      {.name = "exec_command", .arguments = nlohmann::json{{"cmd", command}}.dump()});
  return turn;
}

} // namespace ralph::testing
