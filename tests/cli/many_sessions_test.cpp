#include "fake_provider/fake_provider_server.h"
#include "support/temp_dir.h"

#include "ralph/agent/react_agent.h"
#include "ralph/engine/engine.h"
#include "ralph/llm/factory.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/verify/command_verifier.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace ralph {
namespace {

using namespace std::chrono_literals;
using testing::FakeProviderServer;
using testing::FakeTurn;
using testing::RecordedRequest;
using testing::TempDir;

constexpr int k_sessions = 250;

// Four model turns per session, chosen by how far its conversation has come: read the notes,
// write the answer file, read it back, answer. Every answer waits 100 ms, as a model would.
std::optional<FakeTurn> four_turns(const RecordedRequest& request) {
  const auto body = nlohmann::json::parse(request.body);
  int tool_results = 0;
  std::string session;
  for (const auto& message : body["messages"]) {
    if (message["role"] == "tool") {
      ++tool_results;
    }
    if (message["role"] == "user") {
      session = message["content"].get<std::string>();
    }
  }
  const std::string id = session.substr(session.rfind(' ') + 1);
  FakeTurn turn{.first_byte_delay = 100ms};
  const auto call = [](std::string name, nlohmann::json arguments) {
    return ToolCall{.name = std::move(name), .arguments = arguments.dump()};
  };
  switch (tool_results) {
  case 0:
    turn.tool_calls = {call("read_file", {{"path", "notes.txt"}})};
    break;
  case 1:
    turn.tool_calls = {call("write_file", {{"path", "answer.txt"}, {"content", "for " + id}})};
    break;
  case 2:
    turn.tool_calls = {call("read_file", {{"path", "answer.txt"}})};
    break;
  default:
    turn.text = "done " + id;
  }
  return turn;
}

// The "200+ sessions in one test process against the fake server with a latency": each
// session is the outer loop with the built-in agent and a real verifier command, all of them on
// one engine of two threads.
TEST(ManySessions, TwoHundredFiftyLoopsOnTwoThreadsEachGetTheirOwnVerifiedAnswer) {
  FakeProviderServer server(k_sessions + 10);
  server.set_responder(four_turns);
  TempDir root;
  std::vector<std::filesystem::path> workspaces;
  for (int i = 0; i < k_sessions; ++i) {
    workspaces.push_back(
        root.write("s" + std::to_string(i) + "/notes.txt", "notes\n").parent_path());
  }

  std::mutex mutex;
  std::vector<loop::LoopResult> results(k_sessions);
  std::set<std::thread::id> threads;
  {
    engine::Engine engine({.threads = 2});
    for (int i = 0; i < k_sessions; ++i) {
      engine.spawn([&, i](engine::Io& io) {
        {
          std::lock_guard lock(mutex);
          threads.insert(std::this_thread::get_id());
        }
        const auto& workspace = workspaces[static_cast<std::size_t>(i)];
        llm::ProviderConfig config{.spec = {llm::ProviderKind::openai_compat, "fake"},
                                   .base_url = server.base_url() + "/v1"};
        auto transport = io.make_transport();
        auto provider = llm::make_provider(config, *transport, io.clock());
        ASSERT_TRUE(provider) << provider.error().message;
        const tools::Registry tools = tools::make_builtin_registry({}, io.runner());
        agent::ReactAgent agent(**provider, tools, {.workspace = workspace}, config.spec, {});
        std::vector<loop::VerifierEntry> verifiers;
        auto check = verify::make_command_verifier(
            "grep -q 'for " + std::to_string(i) + "$' answer.txt", {}, io.runner());
        ASSERT_TRUE(check) << check.error().message;
        verifiers.push_back({.verifier = std::move(*check)});
        const std::string goal = "Write your session's answer file, session " + std::to_string(i);
        loop::OuterLoop outer(agent, std::move(verifiers), {.goal = goal, .workspace = workspace},
                              io.clock());
        std::vector<Message> conversation{{.role = Role::user, .content = goal}};
        NullEventSink events;
        results[static_cast<std::size_t>(i)] = outer.run(conversation, CancelToken(), events);
      });
    }
  }

  for (int i = 0; i < k_sessions; ++i) {
    const auto& result = results[static_cast<std::size_t>(i)];
    EXPECT_EQ(result.status, Status::completed) << i << ": " << result.reason;
    EXPECT_TRUE(result.verified) << i;
    EXPECT_EQ(result.answer, "done " + std::to_string(i));
  }
  EXPECT_EQ(server.requests().size(), static_cast<std::size_t>(4 * k_sessions));
  EXPECT_EQ(threads.size(), 2U);
}

} // namespace
} // namespace ralph
