#include "claude_cli.h"

#include "ralph/tools/process_runner.h"

#include <cstdlib>
#include <sstream>

namespace ralph::testing {

std::optional<std::filesystem::path> find_claude() {
  const char* dir = std::getenv("RALPH_AGENT_CLIS_DIR");
  const std::filesystem::path path =
      dir != nullptr && *dir != '\0'
          ? std::filesystem::path(dir) / "claude"
          : std::filesystem::path(RALPH_SOURCE_DIR) / "tests/agent_clis/node_modules/.bin/claude";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return std::nullopt;
  }
  return path;
}

bool agent_clis_required() {
  const char* required = std::getenv("RALPH_REQUIRE_AGENT_CLIS");
  return required != nullptr && std::string(required) == "1";
}

std::vector<std::pair<std::string, std::string>> claude_env(const FakeProviderServer& server,
                                                            const std::filesystem::path& home) {
  return {{"ANTHROPIC_BASE_URL", server.base_url()},
          // Long enough for ralph's redactor to take it as a secret, like a real key.
          {"ANTHROPIC_API_KEY", "sk-ant-test-000000000000000000000000"},
          {"ANTHROPIC_AUTH_TOKEN", ""},
          {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"},
          {"DISABLE_AUTOUPDATER", "1"},
          {"IS_SANDBOX", "1"},
          {"HOME", home.string()},
          {"XDG_CONFIG_HOME", (home / ".config").string()},
          {"CLAUDE_CONFIG_DIR", (home / ".claude").string()}};
}

bool is_agent_turn(const RecordedRequest& request) {
  const auto body = nlohmann::json::parse(request.body, nullptr, false);
  return body.is_object() && body.contains("tools") && !body["tools"].empty();
}

FakeProviderServer::Responder side_request_responder() {
  return [](const RecordedRequest& request) -> std::optional<FakeTurn> {
    if (is_agent_turn(request)) {
      return std::nullopt;
    }
    FakeTurn turn;
    turn.text = "side request answered";
    return turn;
  };
}

std::vector<RecordedRequest> agent_turns(const FakeProviderServer& server) {
  std::vector<RecordedRequest> turns;
  for (RecordedRequest& request : server.requests()) {
    if (is_agent_turn(request)) {
      turns.push_back(std::move(request));
    }
  }
  return turns;
}

ClaudeRun run_claude(const std::filesystem::path& claude, const std::filesystem::path& cwd,
                     const std::string& prompt,
                     const std::vector<std::pair<std::string, std::string>>& env) {
  tools::PosixProcessRunner runner;
  tools::ProcessSpec spec;
  spec.argv = {claude.string(),
               "-p",
               prompt,
               "--output-format",
               "stream-json",
               "--verbose",
               "--permission-mode",
               "bypassPermissions"};
  spec.cwd = cwd;
  spec.timeout = std::chrono::minutes(3);
  spec.output_limit = std::size_t{16} << 20;
  spec.env = env;
  spec.merge_stderr = false;
  ClaudeRun run;
  const auto result = runner.run(spec, CancelToken());
  if (!result) {
    run.err = result.error().message;
    return run;
  }
  run.exit_code = result->exit_code.value_or(128 + result->term_signal);
  run.out = result->output;
  run.err = result->err_output;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    auto event = nlohmann::json::parse(line, nullptr, false);
    if (!event.is_discarded()) {
      run.events.push_back(std::move(event));
    }
  }
  return run;
}

} // namespace ralph::testing
