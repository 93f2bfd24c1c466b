#pragma once

// Driving the real Claude Code CLI (pinned in tests/agent_clis) against the fake provider server:
// where its binary is, a private environment, side requests answered apart from the scripted
// turns, and one `claude -p` run with its stream-json output.

#include "fake_provider/fake_provider_server.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ralph::testing {

// $RALPH_AGENT_CLIS_DIR/claude, else <source>/tests/agent_clis/node_modules/.bin/claude; nullopt
// when it is not there (run `npm ci --prefix tests/agent_clis`).
std::optional<std::filesystem::path> find_claude();

// Whether a missing agent CLI fails the test instead of skipping it (RALPH_REQUIRE_AGENT_CLIS=1,
// as CI sets it).
bool agent_clis_required();

// Skips (or, when agent CLIs are required, fails) the current test when Claude Code is missing;
// otherwise declares `var` as its path.
#define RALPH_FIND_CLAUDE_OR_SKIP(var)                                                             \
  const std::optional<std::filesystem::path> var##_found = ::ralph::testing::find_claude();        \
  if (!var##_found) {                                                                              \
    if (::ralph::testing::agent_clis_required()) {                                                 \
      FAIL() << "Claude Code is missing and RALPH_REQUIRE_AGENT_CLIS=1: run npm ci --prefix "      \
                "tests/agent_clis";                                                                \
    }                                                                                              \
    GTEST_SKIP() << "Claude Code is not installed (npm ci --prefix tests/agent_clis); set "        \
                    "RALPH_REQUIRE_AGENT_CLIS=1 to make this a failure";                           \
  }                                                                                                \
  const std::filesystem::path& var = *var##_found

// The variables a private `claude -p` run gets on top of this process's environment: the fake
// server as its API, a dummy key, `home` as HOME (and its config folders), no non-essential
// traffic, IS_SANDBOX=1 so bypassPermissions works as root.
std::vector<std::pair<std::string, std::string>> claude_env(const FakeProviderServer& server,
                                                            const std::filesystem::path& home);

// Whether a request is one of the agent's model turns (it offers the agent's tools), as opposed
// to a side request Claude Code may make (a title, a topic, a quota probe).
bool is_agent_turn(const RecordedRequest& request);

// Answers side requests with a short text so they never consume a scripted turn.
FakeProviderServer::Responder side_request_responder();

// The agent's model turns the server received, in order.
std::vector<RecordedRequest> agent_turns(const FakeProviderServer& server);

struct ClaudeRun {
  int exit_code = -1;
  std::string out; // stream-json lines
  std::string err;
  std::vector<nlohmann::json> events; // the lines of `out` that parse
};

// Runs `claude -p PROMPT --output-format stream-json --verbose --permission-mode
// bypassPermissions` in `cwd` with stdin from /dev/null, within three minutes.
ClaudeRun run_claude(const std::filesystem::path& claude, const std::filesystem::path& cwd,
                     const std::string& prompt,
                     const std::vector<std::pair<std::string, std::string>>& env);

} // namespace ralph::testing
