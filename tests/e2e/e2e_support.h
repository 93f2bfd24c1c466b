#pragma once

// Shared by the end-to-end tests: turns for the fake provider server and polling for facts other
// processes make true.

#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>

namespace ralph::testing {

inline FakeTurn tool_turn(std::string name, const nlohmann::json& arguments) {
  FakeTurn turn;
  turn.tool_calls.push_back({.name = std::move(name), .arguments = arguments.dump()});
  return turn;
}

inline FakeTurn text_turn(std::string text) {
  FakeTurn turn;
  turn.text = std::move(text);
  return turn;
}

// A test the agent must make pass: `sh test.sh` checks that add.sh adds.
inline constexpr const char* k_test_script =
    "#!/bin/sh\n. ./add.sh\nif [ \"$(add 2 3)\" = 5 ]; then echo 'ok: add'; else echo \"FAIL: "
    "test_add: expected 5, got $(add 2 3)\"; exit 1; fi\n";
inline constexpr const char* k_broken_add = "add() { echo $(($1 - $2)); }\n";
inline constexpr const char* k_fixed_add = "add() { echo $(($1 + $2)); }\n";

inline FakeTurn write_add(const char* body) {
  return tool_turn("write_file", {{"path", "add.sh"}, {"content", body}});
}

// The `--json` result a run printed on stdout (a test failure when it is not JSON).
inline nlohmann::json parse_output(const RalphOutput& out) {
  const auto parsed = nlohmann::json::parse(out.out, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << out.out << out.err;
  return parsed;
}

// Session `id` of `workspace` as `ralph sessions show --json` gives it.
inline nlohmann::json show_session(const std::string& id, const std::filesystem::path& workspace) {
  const RalphOutput out = run_ralph({"sessions", "show", id, "--json"}, workspace);
  EXPECT_EQ(out.exit_code, 0) << out.err;
  return parse_output(out);
}

// Answers every request with `text`, each only once released; releases on destruction so a
// failed test never leaves the server's handler waiting.
class HeldAnswers {
public:
  HeldAnswers(FakeProviderServer& server, std::string text) : m_server(server) {
    std::shared_future<void> released = m_release.get_future().share();
    server.set_responder([released, text](const RecordedRequest&) -> std::optional<FakeTurn> {
      released.wait_for(std::chrono::seconds(120));
      return text_turn(text);
    });
  }
  ~HeldAnswers() {
    release();
    m_server.set_responder({});
  }
  HeldAnswers(const HeldAnswers&) = delete;
  HeldAnswers& operator=(const HeldAnswers&) = delete;

  void release() {
    if (!m_released) {
      m_released = true;
      m_release.set_value();
    }
  }

private:
  FakeProviderServer& m_server;
  std::promise<void> m_release;
  bool m_released = false;
};

// `program` in a folder of $PATH, or nullopt.
inline std::optional<std::filesystem::path> on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path == nullptr ? "" : path;
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::filesystem::path candidate = std::filesystem::path(rest.substr(0, colon)) / program;
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    rest = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
  }
  return std::nullopt;
}

// Polls `condition` until it holds or 30 s pass.
template <typename Condition> bool eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::yield();
  }
  return true;
}

} // namespace ralph::testing
