// `ralph qa` and `ralph task` end to end: the real binary, a document in a temporary workspace,
// the generator's model and the validator's on fake provider servers.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

// The tenant line uses a curly apostrophe (U+2019), as word processors write it.
constexpr const char* k_contract =
    "Termination. Either party may terminate this Agreement with ninety days' written notice.\n"
    "The tenant\xE2\x80\x99s deposit is returned within thirty days after the lease ends.\n"
    "The landlord may terminate immediately if rent is unpaid for two months.\n"
    "Notices must be delivered in writing to the addresses above.\n";

std::string qa_answer(const std::string& tenant_quote) {
  return json{
      {"answer",
       {"Either party may end the agreement with ninety days' notice.",
        "The landlord may end it at once after two months of unpaid rent.",
        "The deposit comes back within thirty days."}},
      {"evidence",
       {"Either party may terminate this Agreement with ninety days' written notice.",
        "The landlord may terminate immediately if rent is unpaid for two months.", tenant_quote}}}
      .dump();
}

FakeTurn lua_turn(const std::string& code) {
  return tool_turn("lua", {{"code", code}});
}

class DocumentEndToEnd : public ::testing::Test {
protected:
  RalphOutput run(const std::string& command, std::vector<std::string> extra) const {
    std::vector<std::string> args{command,
                                  "--doc",
                                  workspace.path().string() + "/contract.txt",
                                  "--model",
                                  "openai-compat/generator",
                                  "--base-url",
                                  generator.base_url() + "/v1",
                                  "--judge",
                                  "anthropic/validator",
                                  "--judge-base-url",
                                  validator.base_url(),
                                  "--workspace",
                                  workspace.path().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_ralph(args, workspace.path(), {{"ANTHROPIC_API_KEY", "sk-ant-test-key"}});
  }
  json generator_request(std::size_t n) const {
    return json::parse(generator.requests().at(n).body);
  }

  FakeProviderServer generator;
  FakeProviderServer validator;
  TempDir workspace;
};

TEST_F(DocumentEndToEnd, QaPassesOnTheSecondAttemptAfterAStraightApostropheIsCaught) {
  workspace.write("contract.txt", k_contract);
  // Attempt 1: explore with Lua (one sub-query), then quote with a straight apostrophe.
  generator.push(lua_turn("local hits = doc:find('terminate')\n"
                          "print(#hits, doc:line(1))\n"
                          "print(llm_query('What notice period applies?', doc:line(1)))"));
  generator.push(text_turn("Ninety days' written notice."));
  generator.push(text_turn(qa_answer("The tenant's deposit is returned within thirty days")));
  // Attempt 2: the apostrophe as the document writes it.
  generator.push(
      text_turn(qa_answer("The tenant\xE2\x80\x99s deposit is returned within thirty days")));
  validator.push(text_turn(R"({"ok": true, "issues": []})"));
  validator.push(text_turn(R"({"ok": true, "issues": []})"));

  const auto out = run("qa", {"--query", "What are the termination conditions?", "--out",
                              (workspace.path() / "traces").string()});

  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  EXPECT_THAT(out.out, HasSubstr("Answer:\n  - Either party may end the agreement"));
  EXPECT_THAT(out.out, HasSubstr("line 2, column 1"));
  EXPECT_THAT(out.out, HasSubstr("exact match")) << "the strictest level that matched";
  EXPECT_THAT(out.err, HasSubstr("completed"));
  ASSERT_EQ(generator.requests().size(), 4U);

  // The Lua ran for real: its output (and the sub-query's answer) went back to the model.
  const json second = generator_request(1);
  EXPECT_THAT(second.dump(), HasSubstr("What notice period applies?"));
  EXPECT_FALSE(second.contains("tools")) << "a sub-query has no tools";
  const json third = generator_request(2);
  EXPECT_THAT(third["messages"].dump(), HasSubstr("Ninety days' written notice."));
  EXPECT_THAT(third["messages"].dump(), HasSubstr("Termination. Either party"));

  // Attempt 2 starts afresh from the question, the previous answer and the failures.
  const std::string retry = generator_request(3)["messages"].dump();
  EXPECT_THAT(retry, HasSubstr("What are the termination conditions?"));
  EXPECT_THAT(retry, HasSubstr("typographic folding"));
  EXPECT_THAT(retry, HasSubstr("The tenant's deposit is returned"));
  EXPECT_THAT(retry, Not(HasSubstr("doc:find"))) << "the previous exploration is not carried";

  // The judge saw windows of the document around the quotes, not the whole of it by chance.
  ASSERT_EQ(validator.requests().size(), 2U);
  const std::string judged = validator.requests()[1].body;
  EXPECT_THAT(judged, HasSubstr("Evidence from contract.txt"));
  EXPECT_THAT(judged, HasSubstr("[E1] bytes 0-"));
  EXPECT_TRUE(std::filesystem::exists(workspace.path() / "traces" / "iter-02.json"));

  // The sub-query is recorded as a call on the model that answered it: what its tokens cost.
  const auto list = run_ralph({"sessions", "list", "--json"}, workspace.path());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const std::string id = json::parse(list.out).at(0).at("id");
  const auto show = run_ralph({"sessions", "show", id, "--json"}, workspace.path());
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const json record = json::parse(show.out);
  std::vector<std::string> sub_query_models;
  for (const auto& call : record.at("model_calls")) {
    if (call.at("stop_reason") == "sub_queries") {
      sub_query_models.push_back(call.at("model"));
    }
  }
  EXPECT_EQ(sub_query_models, std::vector<std::string>{"openai-compat/generator"});
}

TEST_F(DocumentEndToEnd, QaRejectsTrivialAndPromptQuotesAndRunsOutOfAttempts) {
  workspace.write("contract.txt", k_contract);
  const std::string answer =
      json{{"answer", {"One.", "Two.", "Three."}},
           {"evidence",
            {"Termination.",
             "Either party may terminate this Agreement with ninety days' written "
             "notice.",
             "copied character for character from the document"}}}
          .dump();
  generator.push(text_turn(answer));
  validator.push(text_turn(R"({"ok": false, "issues": [{"bullet": 2, "issue": "vague"}]})"));

  const auto out =
      run("qa", {"--query", "What ends the lease?", "--max-iterations", "1", "--json"});

  EXPECT_EQ(out.exit_code, 3) << out.err;
  const json result = json::parse(out.out);
  EXPECT_EQ(result["status"], "budget_exhausted");
  std::string feedback;
  for (const auto& verdict : result["verdicts"]) {
    feedback += verdict["verifier"].get<std::string>() + ": " +
                verdict["feedback"].get<std::string>() + "\n";
  }
  EXPECT_THAT(feedback, HasSubstr("quote 1 \"Termination.\" is too short to be evidence"));
  EXPECT_THAT(feedback, HasSubstr("quote 3 \"copied character for character from the document\" "
                                  "comes from the instructions"));
  EXPECT_THAT(feedback, HasSubstr("qa judge: bullet 2: vague"));
}

TEST_F(DocumentEndToEnd, TaskWritesAndTrimsTheMemoryFileAcrossAttempts) {
  workspace.write("contract.txt", k_contract);
  workspace.write(".ralph/config.toml", "[task]\nmemory_chars = 260\n");
  // Attempt 1: the reader answers at once; the reasoner's output is too short.
  generator.push(text_turn("Brief: termination needs ninety days' notice (line 1)."));
  generator.push(text_turn(
      json{{"output", "Too short."}, {"memory_update", "Line 1 sets ninety days' notice."}}
          .dump()));
  // Attempt 2: reads again, guided by the memory and the failure.
  generator.push(lua_turn("print(doc:line(3))"));
  generator.push(text_turn("Brief: the landlord may terminate after two months unpaid (line 3)."));
  generator.push(text_turn(
      json{{"output", "Termination needs ninety days' written notice from either party, or is "
                      "immediate after two months of unpaid rent."},
           {"memory_update", std::string(120, 'm') + " line 3 adds the unpaid-rent exit."}}
          .dump()));
  validator.push(text_turn("FAIL [incomplete]: it names no termination condition."));
  validator.push(text_turn("The output covers both conditions.\nPASS"));

  const auto out = run(
      "task", {"--query", "Summarise how the lease can end", "--mem-file", "notes.md", "--json"});

  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  const json result = json::parse(out.out);
  EXPECT_EQ(result["iterations"], 2);
  EXPECT_THAT(result["answer"].get<std::string>(), HasSubstr("two months of unpaid rent"));

  // Both updates were appended; the budget of 260 trimmed the older one.
  const std::string memory = workspace.read("notes.md");
  EXPECT_THAT(memory, HasSubstr("[trimmed 1 older block(s)]"));
  EXPECT_THAT(memory, HasSubstr("## Iter 2 - "));
  EXPECT_THAT(memory, HasSubstr("the unpaid-rent exit"));
  EXPECT_THAT(memory, Not(HasSubstr("## Iter 1 - ")));

  // Attempt 2's reader saw the memory and the failures; its reasoner saw the first review.
  const std::string reader = generator_request(2)["messages"].dump();
  EXPECT_THAT(reader, HasSubstr("Line 1 sets ninety days' notice."));
  EXPECT_THAT(reader, HasSubstr("it names no termination condition"));
  const std::string reasoner = generator_request(4)["messages"].dump();
  EXPECT_THAT(reasoner, HasSubstr("Brief: the landlord may terminate"));
  EXPECT_THAT(reasoner, HasSubstr("--- attempt 1 ---"));
}

TEST_F(DocumentEndToEnd, AQaSessionResumesAsQaWithItsDocumentAndFailures) {
  workspace.write("contract.txt", k_contract);
  generator.push(text_turn(qa_answer("The tenant's deposit is returned within thirty days")));
  validator.push(text_turn(R"({"ok": true, "issues": []})"));
  const auto first =
      run("qa", {"--query", "How does the lease end?", "--max-iterations", "1", "--json"});
  ASSERT_EQ(first.exit_code, 3) << first.err;
  const std::string id = json::parse(first.out)["session_id"];

  generator.push(
      text_turn(qa_answer("The tenant\xE2\x80\x99s deposit is returned within thirty days")));
  validator.push(text_turn(R"({"ok": true, "issues": []})"));
  const auto resumed =
      run_ralph({"sessions", "resume", id, "--yes", "--max-iterations", "2", "--workspace",
                 workspace.path().string(), "--base-url", generator.base_url() + "/v1", "--json"},
                workspace.path(), {{"ANTHROPIC_API_KEY", "sk-ant-test-key"}});

  ASSERT_EQ(resumed.exit_code, 0) << resumed.err << resumed.out;
  EXPECT_EQ(json::parse(resumed.out)["iterations"], 2);
  const std::string retry = generator_request(1)["messages"].dump();
  EXPECT_THAT(retry, HasSubstr("How does the lease end?"));
  EXPECT_THAT(retry, HasSubstr("typographic folding"));
  EXPECT_EQ(validator.requests().size(), 2U) << "the recorded judge, on its own server";
}

TEST_F(DocumentEndToEnd, MaxStepsBoundsTheExplorationThenTheFallbackAnswers) {
  workspace.write("contract.txt", k_contract);
  generator.push(lua_turn("print(doc:line(2))"));
  generator.push(
      text_turn(qa_answer("The tenant\xE2\x80\x99s deposit is returned within thirty days")));
  validator.push(text_turn(R"({"ok": true, "issues": []})"));

  const auto out = run("qa", {"--query", "How does the lease end?", "--max-steps", "1"});

  ASSERT_EQ(out.exit_code, 0) << out.err;
  ASSERT_EQ(generator.requests().size(), 2U);
  EXPECT_TRUE(generator_request(0).contains("tools"));
  EXPECT_FALSE(generator_request(1).contains("tools")) << "the fallback extraction has no tools";
  EXPECT_THAT(generator_request(1).dump(), HasSubstr("no code was run in this attempt"))
      << "the one step allowed was the model call that asked for the code";
}

TEST_F(DocumentEndToEnd, AMissingDocumentIsAUsageError) {
  const auto out = run("qa", {"--query", "anything"});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_THAT(out.err, HasSubstr("--doc:"));
  EXPECT_THAT(out.err, HasSubstr("contract.txt"));
  EXPECT_TRUE(generator.requests().empty());
}

} // namespace
} // namespace ralph::testing
