#pragma once

// The real agent CLIs (Claude Code, opencode; pinned in tests/agent_clis/package.json) run against
// the fake provider server: where their binaries are, what a test does when one is missing, a
// private home with the files and variables that point each CLI at the fake and nowhere else, and
// the turns and side answers each CLI's requests need.

#include "fake_provider/fake_provider_server.h"
#include "support/temp_dir.h"

#include "ralph/tools/process_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph::testing {

enum class AgentCli { claude, opencode };

// opencode's model in the private home: the fake server, priced so step costs are not zero.
inline constexpr const char* k_opencode_model = "fake/fake-model";
inline constexpr double k_opencode_input_usd_per_mtok = 3.0;
inline constexpr double k_opencode_output_usd_per_mtok = 15.0;

// The executable's name: "claude", "opencode".
std::string_view cli_name(AgentCli cli);

// Where the CLIs are installed: $RALPH_AGENT_CLIS_DIR, else the source tree's
// tests/agent_clis/node_modules/.bin (`make agent-clis` fills it).
std::filesystem::path agent_clis_dir();

// The CLI's executable in agent_clis_dir(), or nullopt when it is not there.
std::optional<std::filesystem::path> find_agent_cli(AgentCli cli);

// True when $RALPH_REQUIRE_AGENT_CLIS is "1" (CI): a missing CLI fails its tests instead of
// skipping them.
bool agent_clis_required();

// A private home for one CLI, pointed at `server`: the CLI reads its configuration from here and
// writes its sessions, caches and temporary files here, never to the user's own home, /tmp or the
// network. Removed with everything in it on destruction.
// Claude Code: `claude -p --output-format stream-json --verbose --permission-mode
// bypassPermissions --session-id UUID` (then `--resume UUID`), prompt on stdin, started in the
// workspace. opencode: `opencode run --format json --auto --dir WORKSPACE PROMPT` (then
// `--session ses_…`, prompt as argument or on stdin); without --dir it works in $PWD, whatever
// directory it was started in.
class AgentCliHome {
public:
  AgentCliHome(AgentCli cli, const FakeProviderServer& server);

  const std::filesystem::path& path() const { return m_dir.path(); }
  // Variables to set in the CLI's environment (they override inherited ones; a few that would
  // send it elsewhere are set empty).
  const std::map<std::string, std::string>& env() const { return m_env; }
  // The same, as tools::ProcessSpec::env takes them.
  std::vector<std::pair<std::string, std::string>> env_list() const;

private:
  TempDir m_dir;
  std::map<std::string, std::string> m_env;
};

// The name the CLI gives its shell tool in a request's tool list: "Bash", "bash".
std::string_view shell_tool(AgentCli cli);

// A model turn that calls the CLI's own shell tool with `command`.
FakeTurn shell_turn(AgentCli cli, std::string command);

// True when `request` is one of the CLI's agent turns (a model request offering its shell tool);
// false for side requests such as opencode's session-title request, which run concurrently with
// the first turn.
bool is_agent_turn(AgentCli cli, const RecordedRequest& request);

// The agent turns `server` has received so far, oldest first.
std::vector<RecordedRequest> agent_turns(AgentCli cli, const FakeProviderServer& server);

// A responder for FakeProviderServer::set_responder that answers every side request with
// `answer` and leaves agent turns to the queue, so side requests never consume scripted turns.
FakeProviderServer::Responder side_request_responder(AgentCli cli, FakeTurn answer);

// One run of a CLI: how it ended, and the stdout lines that are JSON objects (debug text
// sometimes lands on stdout).
struct CliRun {
  tools::ProcessResult process;
  std::vector<nlohmann::json> events;
};

// Runs `argv` in `workspace` with `env` added (a private home's), stdout and stderr apart, stdin
// `stdin_data` (empty: /dev/null), within two minutes.
CliRun run_cli(const std::filesystem::path& workspace,
               const std::vector<std::pair<std::string, std::string>>& env,
               std::vector<std::string> argv, std::string stdin_data);

// Exit code, stdout and stderr of `run`, for failure messages.
std::string describe(const CliRun& run);

// A version 4 UUID, as `claude --session-id` wants.
std::string random_uuid();

// Base fixture for tests that drive one CLI: a fake provider server answering side requests, the
// CLI's private home and an empty workspace. SetUp skips the test when the CLI is missing, or
// fails it when agent_clis_required().
class AgentCliTest : public ::testing::Test {
protected:
  explicit AgentCliTest(AgentCli cli);
  void SetUp() override;

  AgentCli cli() const { return m_cli; }
  // Valid once SetUp has passed.
  const std::filesystem::path& binary() const { return m_binary; }

  FakeProviderServer server;
  AgentCliHome home;
  TempDir workspace;

private:
  AgentCli m_cli;
  std::filesystem::path m_binary;
};

} // namespace ralph::testing
