#include "fake_provider/fake_provider_server.h"
#include "support/temp_dir.h"

#include "ralph/engine/engine.h"
#include "ralph/session/session.h"

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
// session is the one `ralph run` makes (session::run_goal: the built-in agent, a real verifier
// command, redaction, its record in its workspace's store), all of them on one engine of two
// threads.
TEST(ManySessions, TwoHundredFiftySessionsOnTwoThreadsEachGetTheirOwnVerifiedAnswer) {
  FakeProviderServer server(k_sessions + 10);
  server.set_responder(four_turns);
  TempDir root;
  std::vector<std::filesystem::path> workspaces;
  for (int i = 0; i < k_sessions; ++i) {
    workspaces.push_back(
        root.write("s" + std::to_string(i) + "/notes.txt", "notes\n").parent_path());
  }

  session::Runtime runtime(session::Environment::of({}));
  std::mutex mutex;
  std::vector<Result<session::SessionReport>> reports(k_sessions);
  std::set<std::thread::id> threads;
  {
    engine::Engine engine({.threads = 2});
    for (int i = 0; i < k_sessions; ++i) {
      engine.spawn([&, i](engine::Io& io) {
        {
          std::lock_guard lock(mutex);
          threads.insert(std::this_thread::get_id());
        }
        session::SessionRequest request{.goal = "Write your session's answer file, session " +
                                                std::to_string(i),
                                        .workspace = workspaces[static_cast<std::size_t>(i)]};
        request.config.model = "openai-compat/fake";
        request.config.base_url = server.base_url() + "/v1";
        request.config.verify.commands = {"grep -q 'for " + std::to_string(i) + "$' answer.txt"};
        NullEventSink events;
        reports[static_cast<std::size_t>(i)] =
            session::run_goal(runtime, std::move(request), {.io = &io}, events, CancelToken());
      });
    }
  }

  for (int i = 0; i < k_sessions; ++i) {
    const auto& report = reports[static_cast<std::size_t>(i)];
    ASSERT_TRUE(report) << i << ": " << report.error().message;
    EXPECT_EQ(report->status, Status::completed) << i << ": " << report->reason;
    EXPECT_TRUE(report->verified) << i;
    EXPECT_EQ(report->answer, "done " + std::to_string(i));
    EXPECT_FALSE(report->record_failure) << i;
    EXPECT_TRUE(
        std::filesystem::exists(workspaces[static_cast<std::size_t>(i)] / ".ralph" / "ralph.db"))
        << i << ": recorded as ralph run records it";
  }
  EXPECT_EQ(server.requests().size(), static_cast<std::size_t>(4 * k_sessions));
  EXPECT_EQ(threads.size(), 2U);
}

} // namespace
} // namespace ralph
