#pragma once

// The fake agent CLI (tests/fake_agent_cli) as a test sees it: a bin dir whose claude, codex,
// gemini, goose, opencode and aider are the fake, the script it plays, and the log of what it was
// run with. Typical use:
//
//   TempDir fake_home;
//   FakeAgentCli cli(fake_home);
//   cli.script({FakeRun().shell("sh test.sh").say("Done."), FakeRun().end("error")});
//   run_ralph({"run", "--agent", "gemini", …}, workspace, cli.env_map());
//   EXPECT_EQ(cli.invocations().size(), 2u);
//
// Keep the directory apart from the agent's workspace, so the fake's files are not the agent's.

#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph::testing {

// The program names the fake answers to (its format is the name it was run under).
inline constexpr const char* k_fake_agent_names[] = {"claude", "codex",    "gemini",
                                                     "goose",  "opencode", "aider"};

// One run of the fake, built step by step; `json` is what goes into the script.
struct FakeRun {
  nlohmann::json json = nlohmann::json::object();

  FakeRun& say(std::string text) { return step({{"say", std::move(text)}}); }
  FakeRun& shell(std::string command) { return step({{"shell", std::move(command)}}); }
  FakeRun& write(std::string path, std::string content) {
    return step({{"write", {{"path", std::move(path)}, {"content", std::move(content)}}}});
  }
  FakeRun& notice(std::string text) { return step({{"notice", std::move(text)}}); }
  FakeRun& session(std::string id) { return set("session", std::move(id)); }
  FakeRun& usage(std::int64_t input, std::int64_t output, std::int64_t cached = 0) {
    return set("usage", {{"input", input}, {"output", output}, {"cached", cached}});
  }
  FakeRun& cost(double usd) { return set("cost", usd); }
  // ok, error, exit0_error, crash, no_terminal, hang, chatter.
  FakeRun& end(std::string how) { return set("end", std::move(how)); }
  // Any other field of the run (stderr, junk_lines, exit_code, spawn_background, …).
  FakeRun& set(const std::string& key, nlohmann::json value) {
    json[key] = std::move(value);
    return *this;
  }

private:
  FakeRun& step(nlohmann::json step) {
    json["steps"].push_back(std::move(step));
    return *this;
  }
};

class FakeAgentCli {
public:
  // Makes `dir`/fake-agent-cli/bin with a link per name in k_fake_agent_names to the fake.
  explicit FakeAgentCli(const std::filesystem::path& dir)
      : m_bin_dir(dir / "fake-agent-cli" / "bin"),
        m_script_path(dir / "fake-agent-cli" / "script.json") {
    std::filesystem::create_directories(m_bin_dir);
    for (const char* name : k_fake_agent_names) {
      std::filesystem::create_symlink(RALPH_FAKE_AGENT_CLI, m_bin_dir / name);
    }
  }
  explicit FakeAgentCli(const TempDir& dir) : FakeAgentCli(dir.path()) {}

  // Writes the script as raw JSON text ({"runs": [...]}); the next invocation plays the first
  // run again and the log starts empty.
  void script(std::string_view json_text) const {
    std::ofstream(m_script_path, std::ios::binary) << json_text;
    std::filesystem::remove(state_path());
    std::filesystem::remove(log_path());
  }
  void script(const std::vector<FakeRun>& runs) const {
    nlohmann::json all = nlohmann::json::array();
    for (const FakeRun& run : runs) {
      all.push_back(run.json);
    }
    script(nlohmann::json{{"runs", all}}.dump());
  }
  void script(std::initializer_list<FakeRun> runs) const { script(std::vector<FakeRun>(runs)); }

  const std::filesystem::path& bin_dir() const { return m_bin_dir; }
  // The fake under `name` (one of k_fake_agent_names), as an absolute path.
  std::filesystem::path program(std::string_view name) const { return m_bin_dir / name; }
  const std::filesystem::path& script_path() const { return m_script_path; }

  // PATH with the bin dir first, then this process's PATH.
  std::string path_env() const {
    const char* path = std::getenv("PATH");
    return m_bin_dir.string() + ":" + (path != nullptr ? path : "/usr/bin:/bin");
  }
  // PATH and FAKE_AGENT_SCRIPT, for tools::ProcessSpec::env.
  std::vector<std::pair<std::string, std::string>> env() const {
    return {{"PATH", path_env()}, {"FAKE_AGENT_SCRIPT", m_script_path.string()}};
  }
  // The same as a map, for run_ralph and RalphProcess.
  std::map<std::string, std::string> env_map() const {
    const auto pairs = env();
    return {pairs.begin(), pairs.end()};
  }

  // One entry per invocation that took a run, in order: {"argv", "cwd", "stdin", "env", "run",
  // "format", "pid"}.
  std::vector<nlohmann::json> invocations() const {
    std::vector<nlohmann::json> entries;
    std::ifstream in(log_path());
    for (std::string line; std::getline(in, line);) {
      entries.push_back(nlohmann::json::parse(line, nullptr, false));
      EXPECT_FALSE(entries.back().is_discarded()) << "bad log line: " << line;
    }
    return entries;
  }
  // How many runs of the script have been taken.
  std::size_t runs_taken() const {
    std::ifstream in(state_path());
    std::size_t taken = 0;
    in >> taken;
    return taken;
  }

  std::filesystem::path state_path() const { return m_script_path.string() + ".state"; }
  std::filesystem::path log_path() const { return m_script_path.string() + ".log"; }

private:
  std::filesystem::path m_bin_dir;
  std::filesystem::path m_script_path;
};

} // namespace ralph::testing
