#include "recording_provider.h"
#include "support/recording_observer.h"
#include "support/temp_dir.h"

#include "ralph/docqa/document_agents.h"
#include "ralph/docqa/task_verifiers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <deque>

namespace ralph::docqa {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RecordingProvider;

// A reader that answers with queued briefs and keeps what it was asked.
class FakeReader final : public agent::Agent {
public:
  agent::AgentOutcome run(std::vector<Message>& conversation, const CancelToken& /*cancel*/,
                          agent::AttemptObserver& /*observer*/, EventSink& /*events*/) override {
    prompts.push_back(conversation.at(0).content);
    agent::AgentOutcome outcome;
    outcome.stop = agent::AgentStop::answered;
    outcome.answer = briefs.empty() ? "" : briefs.front();
    if (!briefs.empty()) {
      briefs.pop_front();
    }
    outcome.steps = 2;
    outcome.usage.input_tokens = 50;
    return outcome;
  }
  std::deque<std::string> briefs;
  std::vector<std::string> prompts;
};

std::string reasoned(const std::string& output, const std::string& memory) {
  return nlohmann::json{{"output", output}, {"memory_update", memory}}.dump();
}

class TaskAgentTest : public ::testing::Test {
protected:
  TaskAgentTest() {
    options.reasoner_model = {llm::ProviderKind::scripted, "reasoner"};
    options.memory_file = dir.path() / "notes.md";
    options.memory_chars = 200;
    conversation.push_back(Message{.role = Role::user, .content = "Find the root causes"});
  }
  agent::AgentOutcome attempt() {
    TaskAgent agent(reader, reasoner, ledger, options);
    return agent.run(conversation, CancelToken(), observer, events);
  }
  void fail_with(const std::string& feedback) {
    conversation.push_back(Message{.role = Role::user, .content = feedback});
  }

  ralph::testing::TempDir dir;
  FakeReader reader;
  RecordingProvider reasoner;
  TaskLedger ledger;
  TaskOptions options;
  ralph::testing::RecordingObserver observer;
  NullEventSink events;
  std::vector<Message> conversation;
};

TEST_F(TaskAgentTest, ReaderThenReasonerThenMemory) {
  reader.briefs.push_back("The disk filled up at 02:00 (line 40).");
  reasoner.push(reasoned("Root cause: the disk filled up.", "disk full at 02:00"));

  const agent::AgentOutcome outcome = attempt();

  EXPECT_EQ(outcome.stop, agent::AgentStop::answered);
  EXPECT_EQ(outcome.answer, "Root cause: the disk filled up.");
  EXPECT_EQ(outcome.steps, 3);
  EXPECT_EQ(outcome.usage.input_tokens, 150) << "the reader's and the reasoner's tokens";
  EXPECT_EQ(conversation.back().content, outcome.answer);
  EXPECT_THAT(reasoner.requests.at(0).messages.at(0).content,
              HasSubstr("Brief from the reader:\nThe disk filled up at 02:00 (line 40)."));
  EXPECT_EQ(ledger.get().memory_update, "disk full at 02:00");
  const std::string memory = dir.read("notes.md");
  EXPECT_THAT(memory, HasSubstr("## Iter 1 - "));
  EXPECT_THAT(memory, HasSubstr("disk full at 02:00"));
}

TEST_F(TaskAgentTest, LaterAttemptsSeeTheMemoryAndOnlyTheLastTwoFailures) {
  for (int i = 1; i <= 3; ++i) {
    reader.briefs.push_back("brief " + std::to_string(i));
    reasoner.push(reasoned("output " + std::to_string(i), "finding " + std::to_string(i)));
    attempt();
    fail_with("review " + std::to_string(i) + ": incomplete");
  }
  reader.briefs.push_back("brief 4");
  reasoner.push(reasoned("output 4", std::string(150, 'f')));
  attempt();

  EXPECT_THAT(reader.prompts.back(), HasSubstr("finding 3"));
  EXPECT_THAT(reader.prompts.back(), HasSubstr("review 3: incomplete"));
  const std::string last = reasoner.requests.back().messages.at(0).content;
  EXPECT_THAT(last, HasSubstr("[1 older failed attempt(s) omitted]"));
  EXPECT_THAT(last, HasSubstr("--- attempt 2 ---\nreview 2"));
  EXPECT_THAT(last, HasSubstr("--- attempt 3 ---\nreview 3"));
  EXPECT_THAT(last, Not(HasSubstr("review 1")));

  // The 200-character budget keeps the newest block and counts the trimmed ones.
  const std::string memory = dir.read("notes.md");
  EXPECT_THAT(memory, HasSubstr("## Iter 4 - "));
  EXPECT_THAT(memory, HasSubstr("[trimmed 3 older block(s)]"));
  EXPECT_THAT(memory, Not(HasSubstr("finding 3")));
}

TEST_F(TaskAgentTest, NoBriefOrAReasonerErrorFailsTheAttempt) {
  const agent::AgentOutcome empty = attempt();
  EXPECT_EQ(empty.stop, agent::AgentStop::failed);
  EXPECT_THAT(empty.error->message, HasSubstr("no brief"));

  reader.briefs.push_back("brief");
  reasoner.push_error(Error{.kind = ErrorKind::provider, .message = "HTTP 529: overloaded"});
  const agent::AgentOutcome failed = attempt();
  EXPECT_EQ(failed.stop, agent::AgentStop::failed);
  EXPECT_THAT(failed.error->message, HasSubstr("overloaded"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "notes.md"));
}

TEST_F(TaskAgentTest, TheChecksWantAnOutputAndAMemoryUpdate) {
  TaskChecksVerifier checks(
      ledger, TaskSettings{.mem_file = "notes.md", .min_output_chars = 20, .min_memory_chars = 5});
  verify::Attempt checked;
  checked.answer = "short";
  ledger.set(TaskRecord{.output = "short", .memory_update = ""});
  const verify::Verdict verdict = checks.verify(checked, CancelToken());
  EXPECT_EQ(verdict.result, verify::Outcome::fail);
  EXPECT_THAT(verdict.feedback, HasSubstr("1. the output has 5 characters; at least 20"));
  EXPECT_THAT(verdict.feedback, HasSubstr("2. the memory update is empty"));

  checked.answer = "a long enough output, surely";
  ledger.set(TaskRecord{.output = checked.answer, .memory_update = "found it"});
  EXPECT_EQ(checks.verify(checked, CancelToken()).result, verify::Outcome::pass);
}

TEST_F(TaskAgentTest, TheJudgeSeesTaskBriefMemoryAndOutput) {
  ledger.set(TaskRecord{.brief = "the brief", .output = "the output", .memory = "the memory"});
  reasoner.push("Reasoning.\nFAIL [incomplete]: name the second cause");
  TaskJudgeVerifier judge(reasoner, ledger, {llm::ProviderKind::scripted, "judge"},
                          JudgeSettings{});
  verify::Attempt checked;
  checked.goal = "Find the root causes";
  checked.answer = "the output";
  const verify::Verdict verdict = judge.verify(checked, CancelToken());
  EXPECT_EQ(verdict.result, verify::Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "incomplete");
  EXPECT_EQ(verdict.feedback, "name the second cause");
  const std::string prompt = reasoner.requests.at(0).messages.at(0).content;
  EXPECT_THAT(prompt, HasSubstr("the brief"));
  EXPECT_THAT(prompt, HasSubstr("the memory"));
  EXPECT_THAT(prompt, HasSubstr("Output to judge:\nthe output"));
}

} // namespace
} // namespace ralph::docqa
