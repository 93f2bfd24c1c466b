#pragma once

#include "support/fake_clock.h"
#include "support/temp_dir.h"
#include "tools/git_shell.h"

#include "ralph/app/best_of/best_of.h"
#include "ralph/store/sqlite_session_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ralph::app {

// Records what best of N tells its observer; `on_started` and `on_attempt_event` run inside the
// calls (a test cancels from there, as Ctrl-C would).
class RecordingObserver final : public BestOfObserver {
public:
  void on_start(const BestOfStart& start) override {
    starts.push_back(start);
    if (on_started) {
      on_started();
    }
  }
  void on_interrupted_making_workspaces(const std::filesystem::path& dir) override {
    interrupted_in.push_back(dir);
  }
  void on_event(int attempt, const Event& event) override {
    {
      const std::lock_guard lock(m_mutex);
      m_events[attempt].emplace_back(event.name());
    }
    if (on_attempt_event) {
      on_attempt_event();
    }
  }
  // The names of attempt `attempt`'s events, in order.
  std::vector<std::string> events_of(int attempt) const {
    const std::lock_guard lock(m_mutex);
    const auto found = m_events.find(attempt);
    return found == m_events.end() ? std::vector<std::string>{} : found->second;
  }
  std::set<int> attempts_seen() const {
    const std::lock_guard lock(m_mutex);
    std::set<int> out;
    for (const auto& [attempt, names] : m_events) {
      out.insert(attempt);
    }
    return out;
  }

  std::vector<BestOfStart> starts;
  std::vector<std::filesystem::path> interrupted_in;
  std::function<void()> on_started;
  std::function<void()> on_attempt_event; // from the attempts' threads

private:
  mutable std::mutex m_mutex;
  std::map<int, std::vector<std::string>> m_events;
};

// A source workspace holding answer.txt ("unset"), and a scripted model that writes "fixed" to
// it in the workspace of attempt 2 and "wrong" in every other, then says "Done.": with the
// verify command `grep -qx fixed answer.txt` only attempt 2 passes.
class BestOfFixture : public ::testing::Test {
protected:
  BestOfFixture() {
    std::filesystem::create_directories(dir.path() / "work");
    source = std::filesystem::canonical(dir.path() / "work");
    write("answer.txt", "unset\n");
  }

  void make_repo() {
    git_shell.sh(source, "git init -q -b main && git add -A && git commit -qm base");
  }
  std::string git(const std::string& line) { return git_shell.out(source, "git " + line); }

  BestOfRequest request(int attempts, const std::string& verify = "grep -qx fixed answer.txt") {
    BestOfRequest out{.session = {.goal = "Make answer.txt say fixed.", .workspace = source},
                      .attempts = attempts};
    out.session.config.model = "scripted/" + dir.write("model.json", k_script).string();
    out.session.config.verify.commands = {verify};
    out.session.config.loop.max_iterations = 1;
    return out;
  }

  Result<BestOfReport> run(const BestOfRequest& request) {
    return run_best_of(runtime, request, observer, clock, cancel);
  }

  void write(const std::string& relative, const std::string& content) const {
    std::ofstream(source / relative, std::ios::binary) << content;
  }
  static std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }

  std::unique_ptr<store::SessionStore> store() const {
    auto opened = store::SqliteSessionStore::open(source / ".ralph" / "ralph.db");
    EXPECT_TRUE(opened) << opened.error().message;
    return opened ? std::move(*opened) : nullptr;
  }

  testing::TempDir dir;
  tools::GitShell git_shell;
  std::filesystem::path source;
  session::Runtime runtime{session::Environment::of({})};
  RecordingObserver observer;
  testing::FakeClock clock;
  CancelToken cancel;

private:
  static constexpr const char* k_script = R"({"model": "scripted", "turns": [
    {"tool_calls": [{"name": "shell", "arguments": {"command":
      "if [ \"$(basename \"$PWD\")\" = 2 ]; then echo fixed > answer.txt; else echo wrong > answer.txt; fi"}}]},
    {"text": "Done."}
  ]})";
};

} // namespace ralph::app
