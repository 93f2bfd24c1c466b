// The web UI of `ralph serve` in a real browser, end to end: the fake provider server plays the
// model, the real `ralph serve --port 0` serves a temporary git workspace, and each browser test
// of tests/web/ (node --test, Debian's chromium driven by playwright-core, pinned in
// tests/web/package.json, `make web-tests`) drives its pages. A missing node, chromium or
// playwright-core skips, or fails when RALPH_REQUIRE_AGENT_CLIS=1 (CI).
#include "agent_cli_env.h"
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "serve_process.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <unistd.h>

namespace ralph::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The model of every goal whose text carries a marker `[model:NAME]`, `[model:NAME:held]` or
// `[model:NAME:lazy]` (or worded "in the file NAME.txt"), by the count of calls for NAME: call 1
// answers without making NAME.txt (so `test -f NAME.txt` fails the first attempt), call 2 writes
// it, call 3 says so. `lazy` never writes it. `held`: call K is answered only once a request for
// /control/NAME/K reached the server, so a browser test decides when the run moves on and watches
// each state on the page.
class ScriptedModel {
public:
  explicit ScriptedModel(FakeProviderServer& server) : m_state(std::make_shared<State>(server)) {
    // The handler threads keep the state alive: a call still held when the test ends (a session
    // stopped while it waits) returns after the destructor, reading only what it shares.
    server.set_responder(
        [state = m_state](const RecordedRequest& request) { return answer(*state, request); });
  }
  ~ScriptedModel() {
    m_state->stop = true;
    m_state->server.set_responder({});
  }
  ScriptedModel(const ScriptedModel&) = delete;
  ScriptedModel& operator=(const ScriptedModel&) = delete;

private:
  struct State {
    explicit State(FakeProviderServer& s) : server(s) {}
    FakeProviderServer& server; // outlives every handler: its destruction joins them
    std::atomic<bool> stop = false;
    std::mutex mutex;
    std::map<std::string, int> calls;
  };

  static std::optional<FakeTurn> answer(State& state, const RecordedRequest& request) {
    static const std::regex marker(R"(\[model:([A-Za-z0-9_-]+)((?::[a-z]+)*)\])");
    // Goals worded for the manual's pictures: "... in the file NAME.txt" acts as [model:NAME].
    static const std::regex worded(R"(in the file ([A-Za-z0-9_-]+)\.txt)");
    std::smatch found;
    std::string name;
    std::string flags;
    if (std::regex_search(request.body, found, marker)) {
      name = found[1].str();
      flags = found[2].str();
    } else if (std::regex_search(request.body, found, worded)) {
      name = found[1].str();
    } else {
      return text_turn("Done.");
    }
    int call = 0;
    {
      std::lock_guard lock(state.mutex);
      call = ++state.calls[name];
    }
    if (flags.find(":held") != std::string::npos &&
        !released(state, "/control/" + name + "/" + std::to_string(call))) {
      return text_turn("Stopped waiting.");
    }
    if (flags.find(":lazy") != std::string::npos || call == 1 || call > 3) {
      return text_turn("Done: I looked at the workspace and think nothing needs to change.");
    }
    if (call == 2) {
      return tool_turn("write_file", {{"path", name + ".txt"}, {"content", "done\n"}});
    }
    return text_turn("Wrote " + name + ".txt, which the check looks for.");
  }

  // Waits (bounded) until a request for `path` arrived; false when the test ended first.
  static bool released(const State& state, const std::string& path) {
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    std::size_t seen = 0;
    while (!state.stop && std::chrono::steady_clock::now() < deadline) {
      const auto requests = state.server.requests();
      for (std::size_t i = seen; i < requests.size(); ++i) {
        if (requests[i].path == path) {
          return true;
        }
      }
      seen = requests.size();
      state.server.wait_for_requests(seen + 1, 200ms);
    }
    return false;
  }

  std::shared_ptr<State> m_state;
};

fs::path web_tests_dir() {
  return fs::path(RALPH_SOURCE_DIR) / "tests" / "web";
}

fs::path chromium_path() {
  const char* set = std::getenv("WEB_TEST_CHROMIUM");
  return set != nullptr && *set != '\0' ? fs::path(set) : fs::path("/usr/bin/chromium");
}

// Where the pictures of the pages go: $WEB_TEST_SCREENSHOTS (scripts/web-screenshots.sh gives
// docs/images), else beside the binary as an artifact of the run.
std::string screenshots_dir() {
  const char* set = std::getenv("WEB_TEST_SCREENSHOTS");
  return set != nullptr && *set != '\0'
             ? std::string(set)
             : (fs::path(RALPH_BINARY).parent_path() / "web-screenshots").string();
}

class ServeUi : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    std::string why;
    if (auto found = on_path("node")) {
      m_node = *found;
    } else {
      why = "node is not on the PATH (scripts/install-deps.sh installs it)";
    }
    if (why.empty() && ::access(chromium_path().c_str(), X_OK) != 0) {
      why = chromium_path().string() + " is missing (scripts/install-deps.sh installs chromium; "
                                       "WEB_TEST_CHROMIUM names another)";
    }
    if (why.empty() &&
        !fs::exists(web_tests_dir() / "node_modules" / "playwright-core" / "package.json")) {
      why = "playwright-core is not installed in " + web_tests_dir().string() +
            " (run `make web-tests`)";
    }
    if (why.empty()) {
      return;
    }
    if (agent_clis_required()) {
      FAIL() << why << "; RALPH_REQUIRE_AGENT_CLIS=1 makes this an error";
    }
    GTEST_SKIP() << why;
  }

  // A git repository, so the server keeps snapshots and the diff routes answer.
  void make_git_repo() const {
    workspace.write("README.md", "the project the goals change\n");
    const std::string dir = workspace.path().string();
    ASSERT_EQ(std::system(("cd '" + dir +
                           "' && git init -q . && git -c user.email=t@t -c user.name=t add -A && "
                           "git -c user.email=t@t -c user.name=t commit -qm start")
                              .c_str()),
              0);
    // A price, so costs show as dollars and a batch may have a cost budget.
    workspace.write(".ralph/config.toml",
                    "[prices.\"openai-compat/agent-model\"]\ninput = 3.0\noutput = 15.0\n");
  }

  FakeProviderServer model_server;
  TempDir workspace;
  fs::path m_node;
};

TEST_P(ServeUi, BrowserTestPasses) {
  make_git_repo();
  ScriptedModel model(model_server);
  const bool read_only = GetParam() == "read_only";
  if (read_only) {
    // A read-only server starts nothing: its session is one `ralph run` recorded before.
    const RalphOutput run =
        run_ralph({"run", "Create the file the check wants [model:ro]", "--model",
                   "openai-compat/agent-model", "--base-url", model_server.base_url() + "/v1",
                   "--verify-cmd", "test -f ro.txt", "--max-iterations", "3"},
                  workspace.path());
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  }
  std::vector<std::string> serve_args;
  if (read_only) {
    serve_args.emplace_back("--read-only");
  }
  // Workers: a PostgreSQL store with a queued batch and one `ralph worker` holding its goals.
  std::unique_ptr<RalphProcess> worker;
  if (GetParam() == "workers") {
    PgCluster& cluster = PgCluster::shared();
    RALPH_REQUIRE_PG(cluster);
    const std::string url = cluster.fresh_database();
    const fs::path goals = workspace.write(
        "queued.jsonl", nlohmann::json{{"id", "refactor"},
                                       {"goal", "Refactor the cache [model:w1:held]"},
                                       {"verify", "test -f w1.txt"}}
                                .dump() +
                            "\n" +
                            nlohmann::json{{"id", "docs"},
                                           {"goal", "Document the cache [model:w2:held]"},
                                           {"verify", "test -f w2.txt"}}
                                .dump() +
                            "\n");
    const RalphOutput queued =
        run_ralph({"batch", goals.string(), "--queue", url, "--name", "nightly", "--model",
                   "openai-compat/agent-model", "--base-url", model_server.base_url() + "/v1"},
                  workspace.path());
    ASSERT_EQ(queued.exit_code, 0) << queued.out << queued.err;
    worker = std::make_unique<RalphProcess>(
        std::vector<std::string>{"worker", "--queue", url, "--concurrency", "2", "--lease", "30s",
                                 "--exit-when-empty", "--workdir",
                                 (workspace.path() / ".ralph" / "worker").string()},
        workspace.path());
    serve_args = {"--store", url};
  }
  ServeProcess serve(workspace.path(), serve_args,
                     {{"RALPH_MODEL", "openai-compat/agent-model"},
                      {"RALPH_BASE_URL", model_server.base_url() + "/v1"}});
  ASSERT_TRUE(serve.started());
  ASSERT_FALSE(serve.token().empty()) << "no token in .ralph/serve/token";

  RalphProcess browser_test(
      {"--test", "--test-reporter=spec", GetParam() + ".test.mjs"}, web_tests_dir(),
      {{"WEB_TEST_BASE_URL", "http://127.0.0.1:" + std::to_string(serve.port())},
       {"WEB_TEST_LOGIN_URL", serve.login_url()},
       {"WEB_TEST_TOKEN", serve.token()},
       {"WEB_TEST_MODEL_URL", model_server.base_url()},
       {"WEB_TEST_WORKSPACE", workspace.path().string()},
       {"WEB_TEST_CHROMIUM", chromium_path().string()},
       {"WEB_TEST_SCREENSHOTS", screenshots_dir()}},
      Streams::files, nullptr, m_node.string());
  const RalphOutput out = browser_test.wait();
  if (worker) {
    worker->signal(SIGTERM);
    worker->wait();
  }
  const RalphOutput served = serve.stop();
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err << "\n--- ralph serve:\n" << served.err;
}

INSTANTIATE_TEST_SUITE_P(Pages, ServeUi,
                         ::testing::Values("live_goal", "reload", "two_tabs", "batch", "auth",
                                           "read_only", "workers", "screenshots"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           // live_goal -> LiveGoal: gtest names take no underscore.
                           std::string name;
                           bool upper = true;
                           for (const char c : param.param) {
                             if (c == '_') {
                               upper = true;
                             } else {
                               name += upper ? static_cast<char>(std::toupper(c)) : c;
                               upper = false;
                             }
                           }
                           return name;
                         });

} // namespace
} // namespace ralph::testing
