#include "llm_test_support.h"
#include "support/temp_dir.h"

#include "ralph/llm/scripted_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::llm {
namespace {

using namespace ralph::llm::testing;
using ::testing::HasSubstr;

constexpr std::string_view k_script = R"({
  "model": "demo-model",
  "turns": [
    {"thinking": "Plan: write, then check.",
     "tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "hi"}},
                    {"name": "shell", "arguments": "{\"command\": \"cat a.txt\"}"}]},
    {"text": "Wrote a.txt — it says “hi”. Done and verified."}
  ]
})";

std::unique_ptr<ScriptedProvider> load(std::string_view text) {
  auto provider = ScriptedProvider::from_text(text, "test.json");
  EXPECT_TRUE(provider) << provider.error().message;
  return provider ? std::move(*provider) : nullptr;
}

Error load_error(std::string_view text) {
  auto provider = ScriptedProvider::from_text(text, "bad.json");
  EXPECT_FALSE(provider);
  return provider ? Error{} : provider.error();
}

TEST(ScriptedProvider, ReplaysTurnsInOrder) {
  auto provider = load(k_script);
  ASSERT_TRUE(provider);
  std::vector<Message> messages = {Message{.role = Role::user, .content = "write a.txt"}};
  ChatRequest request;
  request.messages = messages;
  CancelToken cancel;
  RecordingObserver observer;

  auto first = provider->chat(request, &observer, cancel);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->stop_reason, StopReason::tool_use);
  ASSERT_EQ(first->message.tool_calls.size(), 2u);
  EXPECT_EQ(first->message.tool_calls[0].id, "call_1");
  EXPECT_EQ(first->message.tool_calls[0].name, "write_file");
  EXPECT_EQ(first->message.tool_calls[0].arguments, R"({"content":"hi","path":"a.txt"})");
  EXPECT_EQ(first->message.tool_calls[1].id, "call_2");
  EXPECT_EQ(first->message.tool_calls[1].arguments, R"({"command": "cat a.txt"})");
  EXPECT_EQ(first->message.thinking.at(0).thinking, "Plan: write, then check.");
  EXPECT_EQ(first->model, "demo-model");
  EXPECT_EQ(observer.thinking, "Plan: write, then check.");
  EXPECT_EQ(observer.tool_calls.size(), 2u);
  EXPECT_EQ(first->usage.input_tokens, 3) << "11 bytes of prompt / 4, rounded up";
  EXPECT_GT(first->usage.output_tokens, 0);

  auto second = provider->chat(request, &observer, cancel);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->stop_reason, StopReason::end_turn);
  EXPECT_EQ(second->message.content, "Wrote a.txt — it says “hi”. Done and verified.");
  EXPECT_EQ(observer.text, second->message.content);
  EXPECT_GT(observer.text_deltas, 2) << "text streams in small pieces";
  EXPECT_EQ(provider->turns_played(), 2u);
}

TEST(ScriptedProvider, RunningOutOfTurnsIsAnError) {
  auto provider = load(R"({"turns": [{"text": "a"}, {"text": "b"}, {"text": "c"}]})");
  ASSERT_TRUE(provider);
  ChatRequest request;
  CancelToken cancel;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(provider->chat(request, nullptr, cancel));
  }
  auto fourth = provider->chat(request, nullptr, cancel);
  ASSERT_FALSE(fourth);
  EXPECT_EQ(fourth.error().message, "scripted model has no turn 4 (the script has 3)");
}

TEST(ScriptedProvider, CancelledBeforeTheCall) {
  auto provider = load(R"({"turns": [{"text": "a"}]})");
  ASSERT_TRUE(provider);
  CancelToken cancel;
  cancel.cancel();
  auto response = provider->chat(ChatRequest{}, nullptr, cancel);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::cancelled);
  EXPECT_EQ(provider->turns_played(), 0u);
}

TEST(ScriptedProvider, MalformedScriptsNameTheFileAndThePlace) {
  EXPECT_THAT(load_error("{\"turns\": [").message, HasSubstr("bad.json: malformed JSON"));
  EXPECT_EQ(load_error("[]").message, "bad.json: expected an object with \"turns\"");
  EXPECT_EQ(load_error("{}").message, "bad.json: missing \"turns\" (an array of model turns)");
  EXPECT_EQ(load_error(R"({"turns": [{"text": "a"}, {"text": "b"},
                           {"tool_calls": [{"arguments": {}}]}]})")
                .message,
            "bad.json: turns[2].tool_calls[0]: missing name");
  EXPECT_EQ(load_error(R"({"turns": [{"txt": "a"}]})").message,
            "bad.json: turns[0]: unknown key \"txt\"");
  EXPECT_EQ(load_error(R"({"turns": [{"text": 3}]})").message,
            "bad.json: turns[0].text: expected a string");
  EXPECT_EQ(load_error(R"({"turns": [{"tool_calls": [{"name": "x", "arguments": 3}]}]})").message,
            "bad.json: turns[0].tool_calls[0].arguments: expected an object or a string");
  const Error error = load_error(R"({"turns": 1})");
  EXPECT_EQ(error.kind, ErrorKind::config);
  EXPECT_EQ(error.file, "bad.json");
}

TEST(ScriptedProvider, LoadsFromAFile) {
  ralph::testing::TempDir dir;
  const auto path = dir.write("script.json", k_script);
  auto provider = ScriptedProvider::from_file(path);
  ASSERT_TRUE(provider) << provider.error().message;
  EXPECT_EQ((*provider)->name(), "scripted");

  auto missing = ScriptedProvider::from_file(dir.path() / "nope.json");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("nope.json: cannot read the script file"));
}

} // namespace
} // namespace ralph::llm
