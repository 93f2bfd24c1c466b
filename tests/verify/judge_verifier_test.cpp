// JudgeVerifier over in-process providers: verdict mapping, the request it sends, the rules
// files it reads, and every way the call can go wrong.
#include "support/temp_dir.h"

#include "ralph/llm/scripted_provider.h"
#include "ralph/verify/judge_prompt.h"
#include "ralph/verify/judge_rules.h"
#include "ralph/verify/judge_verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <thread>
#include <vector>

namespace ralph::verify {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// What the judge asked the provider, copied out of the request.
struct SeenRequest {
  std::string model;
  std::string system;
  std::vector<Message> messages;
  std::size_t tools = 0;
  int max_tokens = 0;
  std::optional<double> temperature;
  bool stream = true;
  std::optional<std::string> json_schema;
  std::string json_schema_name;
  bool json_schema_strict = false;
};

// Records each request, then answers through `answer` (by default the wrapped scripted turns).
class RecordingProvider final : public llm::Provider {
public:
  using Answer =
      std::function<Result<llm::ChatResponse>(const llm::ChatRequest&, const CancelToken&)>;

  explicit RecordingProvider(Answer answer) : m_answer(std::move(answer)) {}
  explicit RecordingProvider(std::vector<std::string> texts) {
    std::vector<llm::ScriptedTurn> turns;
    for (std::string& text : texts) {
      turns.push_back({.text = std::move(text)});
    }
    m_scripted = std::make_unique<llm::ScriptedProvider>("judge-model", std::move(turns));
  }

  Result<llm::ChatResponse> chat(const llm::ChatRequest& request, llm::StreamObserver* observer,
                                 const CancelToken& cancel) override {
    seen.push_back({request.model, request.system,
                    std::vector<Message>(request.messages.begin(), request.messages.end()),
                    request.tools.size(), request.max_tokens, request.temperature, request.stream,
                    request.json_schema, request.json_schema_name, request.json_schema_strict});
    if (m_scripted) {
      return m_scripted->chat(request, observer, cancel);
    }
    return m_answer(request, cancel);
  }
  std::string_view name() const override { return "recording"; }

  std::vector<SeenRequest> seen;

private:
  Answer m_answer;
  std::unique_ptr<llm::ScriptedProvider> m_scripted;
};

llm::ChatResponse reply(std::string text, llm::StopReason stop = llm::StopReason::end_turn) {
  llm::ChatResponse response;
  response.message.role = Role::assistant;
  response.message.content = std::move(text);
  response.stop_reason = stop;
  response.usage = {.input_tokens = 1200, .output_tokens = 80};
  return response;
}

class JudgeVerifierTest : public ::testing::Test {
protected:
  JudgeVerifierTest() {
    conversation = {Message{.role = Role::user, .content = "List three prime numbers."},
                    Message{.role = Role::assistant, .content = "2, 3 and 5."}};
    attempt.goal = conversation[0].content;
    attempt.answer = conversation[1].content;
    attempt.raw_answer = attempt.answer;
    attempt.conversation = conversation;
    attempt.metadata = {.stop_reason = "answered", .duration_ms = 900, .steps = 1};
    attempt.workspace = workspace.path();
  }

  Verdict run(llm::Provider& provider) {
    JudgeVerifier judge(provider, {llm::ProviderKind::scripted, "judge-model"}, options);
    return judge.verify(attempt, cancel);
  }

  Verdict run_text(std::string text) {
    RecordingProvider provider(std::vector<std::string>{std::move(text)});
    return run(provider);
  }

  ralph::testing::TempDir workspace;
  std::vector<Message> conversation;
  Attempt attempt;
  JudgeSettings options;
  CancelToken cancel;
};

TEST_F(JudgeVerifierTest, PassVerdict) {
  RecordingProvider provider(
      std::vector<std::string>{"Goal: met. Completeness: met. Rules: met.\nPASS"});
  const Verdict verdict = run(provider);
  EXPECT_EQ(verdict.result, Outcome::pass);
  EXPECT_EQ(verdict.verifier, "judge");
  EXPECT_EQ(verdict.category.name(), "");
  EXPECT_EQ(verdict.feedback, "");
  EXPECT_EQ(verdict.model, "scripted/judge-model");
  EXPECT_GT(verdict.usage.input_tokens, 0);
  EXPECT_GE(verdict.duration_ms, 0);
  EXPECT_FALSE(verdict.evidence);
}

TEST_F(JudgeVerifierTest, FailVerdictCarriesCategoryAndFeedbackOnly) {
  const Verdict verdict = run_text("Completeness: not met, only two primes are named.\n"
                                   "FAIL [incomplete]: Name a third prime number.");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "incomplete");
  EXPECT_EQ(verdict.feedback, "Name a third prime number.");
  EXPECT_EQ(verdict.reasoning, "Completeness: not met, only two primes are named.")
      << "kept for the record, not fed back";
}

TEST_F(JudgeVerifierTest, StructuredFailVerdict) {
  const Verdict verdict = run_text(
      R"({"reasoning":"r","verdict":"FAIL","category":"tone_mismatch","feedback":"Be formal."})");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "tone_mismatch");
  EXPECT_EQ(verdict.feedback, "Be formal.");
}

TEST_F(JudgeVerifierTest, BlockedVerdict) {
  const Verdict verdict = run_text(
      "The data only the user has is missing.\nFAIL [blocked]: Ask the user for data.csv.");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "blocked");
}

TEST_F(JudgeVerifierTest, MalformedOutputIsAnErrorNeverAPass) {
  const Verdict verdict = run_text("The answer looks complete and I think it would pass.");
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "malformed");
  EXPECT_THAT(verdict.feedback, HasSubstr("last line is not a verdict"));
  EXPECT_GT(verdict.usage.input_tokens, 0) << "the call was made and is paid for";
}

TEST_F(JudgeVerifierTest, ContradictoryOutputIsAnError) {
  Verdict verdict = run_text("PASS\nActually the third prime is missing.\nFAIL [incomplete]: x");
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "malformed");
  EXPECT_THAT(verdict.feedback, HasSubstr("contradictory"));
  verdict = run_text(R"({"verdict":"PASS","category":"goal_missed"})");
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_THAT(verdict.feedback, HasSubstr("contradictory"));
}

TEST_F(JudgeVerifierTest, RequestHasNoToolsNoStreamingAndTheSchema) {
  RecordingProvider provider(std::vector<std::string>{"PASS"});
  run(provider);
  ASSERT_EQ(provider.seen.size(), 1u);
  const SeenRequest& request = provider.seen[0];
  EXPECT_EQ(request.model, "judge-model");
  EXPECT_EQ(request.tools, 0u);
  EXPECT_EQ(request.max_tokens, 512);
  EXPECT_EQ(request.temperature, 0.0);
  EXPECT_FALSE(request.stream);
  EXPECT_EQ(request.json_schema, std::string(judge_verdict_schema()));
  EXPECT_EQ(request.json_schema_name, "judge_verdict");
  EXPECT_TRUE(request.json_schema_strict);
  EXPECT_EQ(request.system, judge_system_prompt(true));
  ASSERT_EQ(request.messages.size(), 1u);
  EXPECT_EQ(request.messages[0].role, Role::user);
  EXPECT_THAT(request.messages[0].content, HasSubstr("<request>\nList three prime numbers.\n"));
  EXPECT_TRUE(request.messages[0].content.ends_with("<answer>\n2, 3 and 5.\n</answer>"));
}

TEST_F(JudgeVerifierTest, TextModeSendsNoSchemaAndAsksForTheVerdictLine) {
  options.structured = false;
  options.max_tokens = 300;
  RecordingProvider provider(std::vector<std::string>{"PASS"});
  EXPECT_EQ(run(provider).result, Outcome::pass);
  const SeenRequest& request = provider.seen.at(0);
  EXPECT_FALSE(request.json_schema);
  EXPECT_EQ(request.temperature, 0.0);
  EXPECT_EQ(request.max_tokens, 300);
  EXPECT_EQ(request.system, judge_system_prompt(false));
}

TEST_F(JudgeVerifierTest, StructuredModeStillAcceptsTheTextForm) {
  // Servers that ignore json_schema answer in text; the verdict is parsed all the same.
  EXPECT_EQ(run_text("Reasons.\nFAIL [goal_missed]: wrong list").category.name(), "goal_missed");
}

TEST_F(JudgeVerifierTest, RulesFilesComeFromTheWorkspace) {
  workspace.write("AGENTS.md", "Always cite sources.");
  workspace.write("SOUL.md", "Be warm.");
  workspace.write("HEARTBEAT.md", "Check the mailbox.");
  RecordingProvider provider(std::vector<std::string>{"PASS", "PASS"});
  run(provider);
  std::string user = provider.seen.at(0).messages.at(0).content;
  EXPECT_THAT(user, HasSubstr("### AGENTS.md\nAlways cite sources.\n### SOUL.md\nBe warm.\n"));
  EXPECT_THAT(user, Not(HasSubstr("HEARTBEAT")));

  attempt.heartbeat = true;
  run(provider);
  user = provider.seen.at(1).messages.at(0).content;
  EXPECT_THAT(user, HasSubstr("### HEARTBEAT.md\nCheck the mailbox.\n### AGENTS.md"));
}

TEST_F(JudgeVerifierTest, MissingRulesFilesAreSkippedUnreadableOnesNoted) {
  std::filesystem::create_directories(workspace.path() / "SOUL.md");
  options.rules_files = {"AGENTS.md", "SOUL.md", "RULES.md"};
  RecordingProvider provider(std::vector<std::string>{"PASS"});
  run(provider);
  const std::string user = provider.seen.at(0).messages.at(0).content;
  EXPECT_THAT(user, HasSubstr("<user_rules>\n### SOUL.md (could not be read: not a regular "
                              "file)\n</user_rules>"));
  EXPECT_THAT(user, Not(HasSubstr("AGENTS.md")));
  EXPECT_THAT(user, Not(HasSubstr("RULES.md")));
}

TEST_F(JudgeVerifierTest, LargeRulesFileIsReadOnlyUpToTheCap) {
  options.rules_chars = 100;
  workspace.write("AGENTS.md", std::string(100'000, 'r'));
  RecordingProvider provider(std::vector<std::string>{"PASS"});
  run(provider);
  EXPECT_THAT(provider.seen.at(0).messages.at(0).content,
              HasSubstr("[… AGENTS.md cut: showing the first 100 of 100000 chars …]"));
}

TEST_F(JudgeVerifierTest, RequestTooLongIsAnErrorWithoutACall) {
  attempt.goal = std::string(50'000, 'g');
  RecordingProvider provider(std::vector<std::string>{"PASS"});
  const Verdict verdict = run(provider);
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category, Category::context_budget);
  EXPECT_THAT(verdict.feedback,
              HasSubstr("request too long for the judge's context budget of 32000 chars"));
  EXPECT_TRUE(provider.seen.empty());
}

TEST_F(JudgeVerifierTest, ProviderErrorKeepsItsMessage) {
  RecordingProvider provider([](const llm::ChatRequest&, const CancelToken&) {
    Error error;
    error.kind = ErrorKind::provider;
    error.message = "anthropic: HTTP 400 invalid_request_error: max_tokens too large";
    error.http_status = 400;
    return Result<llm::ChatResponse>(fail(error));
  });
  const Verdict verdict = run(provider);
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "provider_error");
  EXPECT_EQ(verdict.feedback, "anthropic: HTTP 400 invalid_request_error: max_tokens too large");
  EXPECT_EQ(verdict.model, "scripted/judge-model");
}

TEST_F(JudgeVerifierTest, ScriptRunningOutIsAProviderError) {
  RecordingProvider provider(std::vector<std::string>{});
  const Verdict verdict = run(provider);
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "provider_error");
}

TEST_F(JudgeVerifierTest, DeadlineIsATimeout) {
  options.timeout = std::chrono::milliseconds(20);
  // Waits for the judge's deadline as a network call would, then reports the cancel.
  RecordingProvider provider([](const llm::ChatRequest&, const CancelToken& token) {
    while (!token.cancelled()) {
      std::this_thread::yield();
    }
    return Result<llm::ChatResponse>(fail(ErrorKind::cancelled, "cancelled"));
  });
  const Verdict verdict = run(provider);
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "timeout");
  EXPECT_EQ(verdict.feedback, "the judge timed out after 20 ms");
  EXPECT_FALSE(cancel.cancelled()) << "the run's own token is untouched";
}

TEST_F(JudgeVerifierTest, RunCancelIsNotATimeout) {
  cancel.cancel();
  RecordingProvider provider([](const llm::ChatRequest&, const CancelToken& token) {
    EXPECT_TRUE(token.cancelled()) << "the judge's token follows the run's";
    return Result<llm::ChatResponse>(fail(ErrorKind::cancelled, "cancelled"));
  });
  const Verdict verdict = run(provider);
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "cancelled");
}

TEST_F(JudgeVerifierTest, OutputCutByTheTokenCapIsSaid) {
  RecordingProvider provider([](const llm::ChatRequest&, const CancelToken&) {
    return Result<llm::ChatResponse>(
        reply("Goal achievement: met. Completeness: the list", llm::StopReason::max_tokens));
  });
  const Verdict verdict = run(provider);
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "malformed");
  EXPECT_THAT(verdict.feedback, HasSubstr("stopped at its output cap of 512 tokens"));
  EXPECT_EQ(verdict.usage.input_tokens, 1200);
  EXPECT_EQ(verdict.usage.output_tokens, 80);
}

TEST_F(JudgeVerifierTest, ConcurrentVerifiesShareTheProviderSafely) {
  RecordingProvider provider(std::vector<std::string>{"PASS", "PASS", "PASS", "PASS"});
  JudgeVerifier judge(provider, {llm::ProviderKind::scripted, "judge-model"}, options);
  std::vector<Verdict> verdicts(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    threads.emplace_back([&, i] { verdicts[i] = judge.verify(attempt, cancel); });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const Verdict& verdict : verdicts) {
    EXPECT_EQ(verdict.result, Outcome::pass);
  }
  EXPECT_EQ(provider.seen.size(), 4u);
}

TEST(JudgeRules, HeartbeatFileOnlyOnHeartbeatRunsAndFirst) {
  const std::vector<std::string> configured = {"AGENTS.md", "HEARTBEAT.md", "SOUL.md"};
  EXPECT_EQ(judge_rules_file_names(configured, false),
            (std::vector<std::string>{"AGENTS.md", "SOUL.md"}));
  EXPECT_EQ(judge_rules_file_names(configured, true),
            (std::vector<std::string>{"HEARTBEAT.md", "AGENTS.md", "SOUL.md"}));
  EXPECT_EQ(judge_rules_file_names({}, true), (std::vector<std::string>{"HEARTBEAT.md"}));
}

TEST(JudgeRules, ReadsAPrefixCutOnAUtf8Boundary) {
  ralph::testing::TempDir dir;
  dir.write("AGENTS.md", "ab\u20ac\u20ac"); // 2 + 3 + 3 bytes
  const std::vector<std::string> names = {"AGENTS.md", "MISSING.md"};
  const std::vector<JudgeRulesFile> files = read_judge_rules(dir.path(), names, 6);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].name, "AGENTS.md");
  EXPECT_EQ(files[0].content, "ab\u20ac");
  EXPECT_EQ(files[0].size, 8u);
  EXPECT_EQ(files[0].error, "");
  EXPECT_TRUE(read_judge_rules({}, names, 6).empty()) << "no workspace, no rules";
}

} // namespace
} // namespace ralph::verify
