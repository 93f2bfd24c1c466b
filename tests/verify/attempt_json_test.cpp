#include "ralph/verify/attempt_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace ralph::verify {
namespace {

using nlohmann::json;

TEST(AttemptJson, WritesEveryFieldOfTheContract) {
  const std::vector<Message> conversation = {
      Message{.role = Role::system, .content = "be careful"},
      Message{.role = Role::user, .content = "fix it"},
      Message{.role = Role::assistant,
              .content = "running",
              .tool_calls = {ToolCall{"c1", "shell", R"({"command":"make"})"},
                             ToolCall{"c2", "read_file", "{not json"}}},
      Message{.role = Role::tool,
              .content = "boom",
              .tool_call_id = "c1",
              .tool_name = "shell",
              .is_error = true},
      Message{.role = Role::assistant, .content = "Fixed."},
  };
  Attempt attempt;
  attempt.iteration = 3;
  attempt.max_iterations = 5;
  attempt.goal = "fix it";
  attempt.answer = "Fixed.";
  attempt.raw_answer = "Fixed.<promise>DONE</promise>";
  attempt.conversation = conversation;
  attempt.attempt_begin = 1;
  attempt.tools = {
      ToolRecord{.id = "c1",
                 .name = "shell",
                 .arguments = R"({"command":"make"})",
                 .exit_code = 2,
                 .changed_workspace = true,
                 .duration_ms = 40},
      ToolRecord{.id = "c2",
                 .name = "read_file",
                 .arguments = "{not json",
                 .is_error = true,
                 .duration_ms = 1},
  };
  attempt.metadata = {"answered", 1500, 3, 2};
  attempt.previous_feedback = {"first", "second"};
  attempt.workspace = "/work/space";

  const std::string text = attempt_to_json(attempt);
  ASSERT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1); // one line
  const json out = json::parse(text);
  EXPECT_EQ(out["version"], 1);
  EXPECT_EQ(out["iteration"], 3);
  EXPECT_EQ(out["max_iterations"], 5);
  EXPECT_EQ(out["goal"], "fix it");
  EXPECT_EQ(out["answer"], "Fixed.");
  EXPECT_EQ(out["raw_answer"], "Fixed.<promise>DONE</promise>");
  EXPECT_EQ(out["workspace"], "/work/space");
  EXPECT_EQ(out["heartbeat"], false);
  EXPECT_EQ(
      out["metadata"],
      json::parse(R"({"stop_reason":"answered","duration_ms":1500,"steps":3,"tool_calls":2})"));
  EXPECT_EQ(out["tools"][0],
            json::parse(R"({"id":"c1","name":"shell","arguments":{"command":"make"},
      "exit_code":2,"is_error":false,"changed_workspace":true,"duration_ms":40})"));
  EXPECT_EQ(out["tools"][1]["arguments"], "{not json");
  EXPECT_TRUE(out["tools"][1]["exit_code"].is_null());
  EXPECT_EQ(out["previous_feedback"], json::array({"first", "second"}));

  const json& messages = out["messages"];
  ASSERT_EQ(messages.size(), 4u); // from attempt_begin on
  EXPECT_EQ(messages[0], json::parse(R"({"role":"user","content":"fix it"})"));
  EXPECT_EQ(messages[1]["tool_calls"],
            json::parse(R"([{"id":"c1","name":"shell","arguments":{"command":"make"}},
                            {"id":"c2","name":"read_file","arguments":"{not json"}])"));
  EXPECT_EQ(messages[2], json::parse(R"({"role":"tool","content":"boom","tool_call_id":"c1",
      "tool_name":"shell","is_error":true})"));
  EXPECT_EQ(messages[3], json::parse(R"({"role":"assistant","content":"Fixed."})"));
}

TEST(AttemptJson, ReplacesInvalidUtf8InsteadOfThrowing) {
  const std::vector<Message> conversation = {
      Message{.role = Role::assistant, .content = "bad \xC3\x28 bytes"}};
  Attempt attempt;
  attempt.answer = "caf\xE9";
  attempt.conversation = conversation;
  attempt.tools = {ToolRecord{.id = "x", .name = "shell", .arguments = "{\"a\":\"\xFF\"}"}};
  const json out = json::parse(attempt_to_json(attempt));
  EXPECT_EQ(out["answer"], "caf\xEF\xBF\xBD");
  EXPECT_EQ(out["messages"][0]["content"], "bad \xEF\xBF\xBD( bytes");
  EXPECT_EQ(out["tools"][0]["arguments"], "{\"a\":\"\xEF\xBF\xBD\"}");
}

TEST(AttemptJson, ToleratesAnAttemptBeginPastTheEnd) {
  const std::vector<Message> conversation = {Message{.role = Role::user, .content = "hi"}};
  Attempt attempt;
  attempt.conversation = conversation;
  attempt.attempt_begin = 7;
  const json out = json::parse(attempt_to_json(attempt));
  EXPECT_TRUE(out["messages"].is_array());
  EXPECT_TRUE(out["messages"].empty());
  EXPECT_TRUE(out["tools"].empty());
  EXPECT_TRUE(out["previous_feedback"].empty());
}

} // namespace
} // namespace ralph::verify
