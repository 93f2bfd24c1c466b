#include "agent_cli_env.h"

#include "ralph/core/text.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <unistd.h>

namespace ralph::testing {
namespace {

using nlohmann::json;

constexpr const char* k_fake_key = "fake-key-for-agent-cli-tests";

std::string env_or(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : std::move(fallback);
}

// opencode installs @opencode-ai/plugin into every config folder it reads, from the npm registry,
// unless the folder's package-lock.json already lists it next to a node_modules folder.
void write_opencode_config(const TempDir& home, const std::string& base_url) {
  const json model{
      {"name", "Fake model"},
      {"tool_call", true},
      {"cost",
       {{"input", k_opencode_input_usd_per_mtok}, {"output", k_opencode_output_usd_per_mtok}}},
      {"limit", {{"context", 200000}, {"output", 8192}}}};
  // A provider of its own with the bundled OpenAI-compatible SDK: opencode never fetches it, and
  // enabled_providers keeps credentials in the environment from enabling real providers.
  const json config{{"$schema", "https://opencode.ai/config.json"},
                    {"model", k_opencode_model},
                    {"small_model", k_opencode_model},
                    {"enabled_providers", {"fake"}},
                    {"autoupdate", false},
                    {"share", "disabled"},
                    {"provider",
                     {{"fake",
                       {{"npm", "@ai-sdk/openai-compatible"},
                        {"name", "Fake provider"},
                        {"options", {{"baseURL", base_url + "/v1"}, {"apiKey", k_fake_key}}},
                        {"models", {{"fake-model", model}}}}}}}};
  home.write(".config/opencode/opencode.json", config.dump(2));
  home.write(".config/opencode/package-lock.json",
             R"({"packages":{"":{"dependencies":{"@opencode-ai/plugin":"*"}}}})");
  std::filesystem::create_directories(home.path() / ".config/opencode/node_modules");
}

} // namespace

std::string_view cli_name(AgentCli cli) {
  switch (cli) {
  case AgentCli::claude:
    return "claude";
  case AgentCli::opencode:
    return "opencode";
  }
  return "unknown";
}

std::filesystem::path agent_clis_dir() {
  return env_or("RALPH_AGENT_CLIS_DIR", RALPH_SOURCE_DIR "/tests/agent_clis/node_modules/.bin");
}

std::optional<std::filesystem::path> find_agent_cli(AgentCli cli) {
  const auto binary = agent_clis_dir() / cli_name(cli);
  if (::access(binary.c_str(), X_OK) != 0) {
    return std::nullopt;
  }
  return binary;
}

bool agent_clis_required() {
  return env_or("RALPH_REQUIRE_AGENT_CLIS", "") == "1";
}

AgentCliHome::AgentCliHome(AgentCli cli, const FakeProviderServer& server) {
  const std::filesystem::path& home = m_dir.path();
  std::filesystem::create_directories(home / "tmp");
  m_env = {
      {"HOME", home.string()},
      {"TMPDIR", (home / "tmp").string()}, // opencode leaves a 5 MB native library per run there
      {"XDG_CONFIG_HOME", (home / ".config").string()},
      {"XDG_DATA_HOME", (home / ".local/share").string()},
      {"XDG_CACHE_HOME", (home / ".cache").string()},
      {"XDG_STATE_HOME", (home / ".local/state").string()},
  };
  switch (cli) {
  case AgentCli::claude:
    m_env.insert({
        {"CLAUDE_CONFIG_DIR", (home / ".claude").string()},
        {"ANTHROPIC_BASE_URL", server.base_url()},
        {"ANTHROPIC_API_KEY", k_fake_key},
        // No connectivity check (HEAD /api/hello), telemetry, update or error reporting.
        {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"},
        // Tests run as root in CI, where bypassPermissions is refused without it.
        {"IS_SANDBOX", "1"},
        {"ANTHROPIC_AUTH_TOKEN", ""},
        {"ANTHROPIC_MODEL", ""},
        {"CLAUDE_CODE_USE_BEDROCK", ""},
        {"CLAUDE_CODE_USE_VERTEX", ""},
    });
    break;
  case AgentCli::opencode:
    write_opencode_config(m_dir, server.base_url());
    m_env.insert({
        {"OPENCODE_PURE", "1"}, // no external plugins (the same as --pure)
        {"OPENCODE_DISABLE_MODELS_FETCH", "1"},
        {"OPENCODE_DISABLE_AUTOUPDATE", "1"},
        {"OPENCODE_DISABLE_LSP_DOWNLOAD", "1"},
        {"OPENCODE_DISABLE_DEFAULT_PLUGINS", "1"},
        {"OPENCODE_DISABLE_SHARE", "1"},
        {"OPENCODE_DISABLE_CLAUDE_CODE", "1"},
        {"OPENCODE_CONFIG", ""},
        {"OPENCODE_CONFIG_DIR", ""},
        {"OPENCODE_CONFIG_CONTENT", ""},
    });
    break;
  }
}

std::vector<std::pair<std::string, std::string>> AgentCliHome::env_list() const {
  return {m_env.begin(), m_env.end()};
}

std::string_view shell_tool(AgentCli cli) {
  return cli == AgentCli::claude ? "Bash" : "bash";
}

FakeTurn shell_turn(AgentCli cli, std::string command) {
  // Both CLIs' shell tools take {command, description}; the description is what they show.
  const json arguments{{"command", std::move(command)}, {"description", "Run a command"}};
  FakeTurn turn;
  turn.tool_calls.push_back({.name = std::string(shell_tool(cli)), .arguments = arguments.dump()});
  return turn;
}

bool is_agent_turn(AgentCli cli, const RecordedRequest& request) {
  const json body = json::parse(request.body, nullptr, false);
  if (!body.is_object() || !body.contains("tools") || !body["tools"].is_array()) {
    return false;
  }
  for (const json& tool : body["tools"]) {
    // Anthropic: {name, …}; OpenAI: {type: "function", function: {name, …}}.
    const json& named = tool.contains("function") ? tool["function"] : tool;
    if (named.is_object() && named.value("name", "") == shell_tool(cli)) {
      return true;
    }
  }
  return false;
}

std::vector<RecordedRequest> agent_turns(AgentCli cli, const FakeProviderServer& server) {
  std::vector<RecordedRequest> out;
  for (RecordedRequest& request : server.requests()) {
    if (is_agent_turn(cli, request)) {
      out.push_back(std::move(request));
    }
  }
  return out;
}

FakeProviderServer::Responder side_request_responder(AgentCli cli, FakeTurn answer) {
  return [cli, answer = std::move(answer)](const RecordedRequest& request) {
    return is_agent_turn(cli, request) ? std::nullopt : std::optional<FakeTurn>(answer);
  };
}

std::string random_uuid() {
  std::random_device device;
  std::mt19937_64 random(device());
  std::uniform_int_distribution<int> byte(0, 255);
  std::array<int, 16> bytes{};
  for (int& b : bytes) {
    b = byte(random);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      out += '-';
    }
    std::array<char, 3> hex{};
    std::snprintf(hex.data(), hex.size(), "%02x", bytes[i]);
    out += hex.data();
  }
  return out;
}

AgentCliTest::AgentCliTest(AgentCli cli) : home(cli, server), m_cli(cli) {
  FakeTurn title;
  title.text = "Fake session title";
  server.set_responder(side_request_responder(cli, std::move(title)));
}

void AgentCliTest::SetUp() {
  const auto binary = find_agent_cli(m_cli);
  if (binary) {
    m_binary = *binary;
    return;
  }
  const std::string why = std::string(cli_name(m_cli)) + " is not installed in " +
                          agent_clis_dir().string() +
                          " (run `make agent-clis`, or set RALPH_AGENT_CLIS_DIR)";
  if (agent_clis_required()) {
    FAIL() << why << "; RALPH_REQUIRE_AGENT_CLIS=1 makes this an error";
  }
  GTEST_SKIP() << why;
}

CliRun run_cli(const std::filesystem::path& workspace,
               const std::vector<std::pair<std::string, std::string>>& env,
               std::vector<std::string> argv, std::string stdin_data) {
  tools::ProcessSpec spec{.argv = std::move(argv),
                          .cwd = workspace,
                          .timeout = std::chrono::minutes(2),
                          .output_limit = std::size_t{64} << 20,
                          .stdin_data = std::move(stdin_data),
                          .env = env,
                          .merge_stderr = false};
  tools::PosixProcessRunner runner;
  auto result = runner.run(spec, CancelToken{});
  EXPECT_TRUE(result) << result.error().message;
  CliRun run{.process = result ? std::move(*result) : tools::ProcessResult{}};
  for (const std::string_view line : split_lines(run.process.output)) {
    // Debug text sometimes lands on stdout: only lines that are JSON objects are events.
    if (line.empty() || line[0] != '{') {
      continue;
    }
    nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
    if (event.is_object()) {
      run.events.push_back(std::move(event));
    }
  }
  return run;
}

std::string describe(const CliRun& run) {
  return "exit " + (run.process.exit_code ? std::to_string(*run.process.exit_code) : "none") +
         "\nstdout:\n" + run.process.output + "\nstderr:\n" + run.process.err_output;
}

} // namespace ralph::testing
