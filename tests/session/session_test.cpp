// One session through the library, as every front door runs it: new and resumed, its outputs,
// its warnings, its configuration mistakes before anything runs, and its keys from the runtime.
#include "fake_provider/fake_provider_server.h"
#include "support/recording_sink.h"
#include "support/temp_dir.h"

#include "ralph/session/record.h"
#include "ralph/session/session.h"
#include "ralph/session/settings.h"
#include "ralph/store/sqlite_session_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace ralph::session {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

// A model that writes hello.txt wrong, says it is done, then fixes it after the feedback.
constexpr const char* k_hello_script = R"({"model": "scripted", "turns": [
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hi\n"}}]},
  {"text": "Done."},
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "Hello\n"}}]},
  {"text": "Fixed."}
]})";

constexpr const char* k_check = "grep -qx Hello hello.txt";

struct Fixture {
  TempDir dir;
  std::filesystem::path workspace = dir.path() / "work";
  Runtime runtime{Environment::of({})};

  Fixture() { std::filesystem::create_directories(workspace); }

  SessionRequest hello_request() const {
    SessionRequest request{.goal = "Write Hello to hello.txt.", .workspace = workspace};
    request.config.model = "scripted/" + dir.write("hello.json", k_hello_script).string();
    request.config.verify.commands = {k_check};
    return request;
  }

  std::unique_ptr<store::SessionStore> store() const {
    auto opened = store::SqliteSessionStore::open(workspace / ".ralph" / "ralph.db");
    EXPECT_TRUE(opened) << opened.error().message;
    return opened ? std::move(*opened) : nullptr;
  }
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Session, ANewSessionRunsToAVerifiedAnswerAndIsRecordedWithItsOutputs) {
  Fixture f;
  SessionRequest request = f.hello_request();
  request.outputs = {.events_file = f.dir.path() / "events.ndjson",
                     .trace_dir = f.dir.path() / "traces"};
  testing::RecordingSink events;
  const auto report = run_goal(f.runtime, std::move(request), {}, events, CancelToken());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->status, Status::completed) << report->reason;
  EXPECT_TRUE(report->verified);
  EXPECT_EQ(report->iterations, 2);
  EXPECT_EQ(report->answer, "Fixed.");
  EXPECT_FALSE(report->record_failure);
  EXPECT_TRUE(report->events_error.empty());
  EXPECT_FALSE(events.events.empty()) << "every event reaches the caller's sink";

  const auto record = f.store()->load(report->session_id);
  ASSERT_TRUE(record && *record);
  EXPECT_EQ((*record)->session.kind, store::SessionKind::run);
  EXPECT_EQ((*record)->session.status, Status::completed);
  EXPECT_EQ((*record)->attempts.size(), 2u);
  const std::string lines = read_file(f.dir.path() / "events.ndjson");
  EXPECT_THAT(lines, HasSubstr("\"session\":\"" + report->session_id + "\""));
  EXPECT_TRUE(std::filesystem::exists(f.dir.path() / "traces" / "iter-02.json"));
}

TEST(Session, AResumedSessionGoesOnFromItsRecordWithTheBudgetRaised) {
  Fixture f;
  SessionRequest first = f.hello_request();
  first.config.loop.max_iterations = 1;
  testing::RecordingSink events;
  const auto ended = run_goal(f.runtime, first, {}, events, CancelToken());
  ASSERT_TRUE(ended) << ended.error().message;
  ASSERT_EQ(ended->status, Status::budget_exhausted) << ended->reason;

  auto store = f.store();
  auto record = store->load(ended->session_id);
  ASSERT_TRUE(record && *record);
  // A scripted model replays its script from the start in each run: the run resumed here is
  // given the model's second half.
  const std::string fix = f.dir
                              .write("fix.json", R"({"model": "scripted", "turns": [
    {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "Hello\n"}}]},
    {"text": "Fixed."}]})")
                              .string();
  const auto raised = parse_settings({{.key = "loop.max_iterations", .value = "2", .flag = "-"},
                                      {.key = "model", .value = "scripted/" + fix, .flag = "-"}});
  ASSERT_TRUE(raised);
  auto config = recorded_settings((*record)->session, *raised);
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->verify.commands, (std::vector<std::string>{k_check})) << "as recorded";
  const auto resumed = run_goal(f.runtime,
                                {.goal = (*record)->session.goal,
                                 .workspace = f.workspace,
                                 .config = *config,
                                 .resume = std::move(**record)},
                                {.store = store.get()}, events, CancelToken());
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_EQ(resumed->session_id, ended->session_id);
  EXPECT_EQ(resumed->status, Status::completed) << resumed->reason;
  EXPECT_EQ(resumed->iterations, 2) << "the first attempt is carried, the second run here";
  const auto after = store->load(ended->session_id);
  ASSERT_TRUE(after && *after);
  EXPECT_EQ((*after)->attempts.size(), 2u);
}

TEST(Session, ConfigurationMistakesAreErrorsBeforeAnythingIsRecorded) {
  Fixture f;
  SessionRequest unknown_agent = f.hello_request();
  unknown_agent.config.agent.cli = "no-such-cli";
  const auto agent = Session::prepare(f.runtime, unknown_agent, {}, CancelToken());
  ASSERT_FALSE(agent);
  EXPECT_EQ(agent.error().kind, ErrorKind::config);
  EXPECT_THAT(agent.error().message, HasSubstr("unknown agent 'no-such-cli'"));

  SessionRequest unpriced = f.hello_request();
  unpriced.config.budget.max_cost_usd = 1;
  const auto cost = Session::prepare(f.runtime, unpriced, {}, CancelToken());
  ASSERT_FALSE(cost);
  EXPECT_THAT(cost.error().message, HasSubstr("[prices] has no entry"));

  const auto listed = f.store()->list_sessions();
  ASSERT_TRUE(listed);
  EXPECT_TRUE(listed->empty());
}

TEST(Session, AJudgeOfTheAgentsOwnFamilyIsAWarningOfThePreparedSession) {
  Fixture f;
  Runtime runtime(Environment::of({{"OPENAI_API_KEY", "sk-test-0123456789abcdef"}}));
  SessionRequest request = f.hello_request();
  request.config.model = "openai/gpt-4.1";
  request.config.judge.model = "openai/gpt-4.1-mini";
  const auto session = Session::prepare(runtime, request, {}, CancelToken());
  ASSERT_TRUE(session) << session.error().message;
  ASSERT_EQ((*session)->warnings().size(), 1u);
  EXPECT_THAT((*session)->warnings().front(), HasSubstr("of the agent's family (openai)"));
}

// A server gives each caller the keys of its own environment, never the process's.
TEST(Session, RerunsWithoutAVerifyCommandAreAWarningOfThePreparedSession) {
  Fixture f;
  SessionRequest request = f.hello_request();
  request.config.verify.runs = 3;
  const auto with_command = Session::prepare(f.runtime, request, {}, CancelToken());
  ASSERT_TRUE(with_command) << with_command.error().message;
  EXPECT_TRUE((*with_command)->warnings().empty());

  request.config.verify.commands.clear();
  request.config.judge.on_agent_model = true; // a verifier still, so the session is verified
  const auto without = Session::prepare(f.runtime, request, {}, CancelToken());
  ASSERT_TRUE(without) << without.error().message;
  ASSERT_EQ((*without)->warnings().size(), 1u);
  EXPECT_THAT((*without)->warnings().front(),
              HasSubstr("--reruns and --quorum (verify.runs, verify.quorum) do nothing without a "
                        "verify command"));
}

TEST(Session, KeysComeFromTheRuntimesEnvironmentAndAreRedactedFromWhatIsShown) {
  Fixture f;
  testing::FakeProviderServer server;
  const std::string key = "sk-caller-own-key-0123456789";
  server.push({.text = "The key is " + key});
  Runtime runtime(Environment::of({{"OPENAI_API_KEY", key}}));
  SessionRequest request{.goal = "say it", .workspace = f.workspace};
  request.config.model = "openai/gpt-4.1";
  request.config.base_url = server.base_url() + "/v1";
  testing::RecordingSink events;
  const auto report = run_goal(runtime, request, {}, events, CancelToken());
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests().front().headers.at("authorization"), "Bearer " + key);
  EXPECT_THAT(report->answer, ::testing::Not(HasSubstr(key)));
  EXPECT_THAT(report->answer, HasSubstr("[REDACTED]"));
}

} // namespace
} // namespace ralph::session
