#pragma once

// Running the real Codex CLI (`@openai/codex`, pinned in tests/agent_clis) against the fake
// provider server: where the binary is, the private CODEX_HOME that points it at the fake, and the
// turns that make it run a shell command.
//
// What Codex 0.169 needs (found by running it; see the test): a custom `model_provider` with
// `wire_api = "responses"` and `base_url` = fake + "/v1", whose key comes from `env_key`. It then
// POSTs only to /v1/responses (streaming, `store:false`, the whole history every time: no
// /v1/models, no other request). Its shell tool is the function `exec_command` with arguments
// {"cmd": "<shell command>"}; it runs it as `/bin/bash -lc '<cmd>'` in the `-C` directory and sends
// the result back as a `function_call_output` for the same call_id. `--sandbox workspace-write`
// works here, as root in a container (codex reports sandbox "seccomp"): the command writes in the
// workspace, a write elsewhere fails with "Read-only file system". Root flags go before `resume`
// (`codex exec --json ... -C DIR resume THREAD_ID -`); a resumed thread resends its whole history,
// and its `turn.completed` usage is the thread's running total, earlier invocations included.

#include "agent_cli_env.h"
#include "fake_provider/fake_provider_server.h"

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ralph::testing {

// The codex binary in agent_clis_dir(), or nullopt when it is not installed.
std::optional<std::filesystem::path> codex_binary();

// The environment codex runs with: a private HOME and CODEX_HOME, and the fake key.
struct CodexHome {
  std::filesystem::path home;
  std::filesystem::path codex_home; // holds config.toml, sessions/, the state databases
  std::vector<std::pair<std::string, std::string>> env;
};

// Inline name of the config's provider and of the variable its key is read from.
inline constexpr const char* k_codex_provider = "ralph_fake";
inline constexpr const char* k_codex_key_variable = "FAKE_PROVIDER_KEY";
inline constexpr const char* k_codex_model = "fake-model";

// Creates `root`/home and `root`/home/.codex with a config.toml that sends every model call to
// `base_url` (the fake server's, without "/v1").
CodexHome write_codex_home(const std::filesystem::path& root, const std::string& base_url);

// `codex exec --json --sandbox workspace-write --skip-git-repo-check -C <workspace>`, then the
// extra arguments (e.g. {"resume", id}), then "-": the prompt comes on stdin.
std::vector<std::string> codex_exec_argv(const std::filesystem::path& binary,
                                         const std::filesystem::path& workspace,
                                         const std::vector<std::string>& extra = {});

// A model turn that has codex run `command` with its shell tool.
FakeTurn codex_shell_turn(const std::string& command);

} // namespace ralph::testing
