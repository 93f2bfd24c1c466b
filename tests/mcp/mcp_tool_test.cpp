// The tools::Tool adapter over a client of the scripted stdio server: its spec, its result
// capped head-and-tail, progress through ToolContext::on_progress and a cancel passed on.
#include "mcp/mcp_test_servers.h"
#include "support/temp_dir.h"

#include "ralph/mcp/mcp_tool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ralph::mcp {
namespace {

struct Fixture {
  testing::TempDir dir;
  std::shared_ptr<Client> client;
  std::vector<RemoteTool> tools;

  Fixture() {
    ClientOptions options;
    options.workspace = dir.path();
    auto connected = Client::connect(testing::scripted_server(), options);
    EXPECT_TRUE(connected) << (connected ? "" : connected.error().message);
    if (connected) {
      client = *std::move(connected);
      tools = client->tools();
    }
  }

  std::unique_ptr<tools::Tool> tool(const std::string& name, std::size_t limit = 10'000) {
    const auto it = std::find_if(tools.begin(), tools.end(),
                                 [&](const RemoteTool& t) { return t.name == name; });
    EXPECT_NE(it, tools.end()) << name;
    return make_mcp_tool(client, "scripted", *it, limit);
  }

  tools::ToolContext context() const {
    tools::ToolContext c;
    c.workspace = dir.path();
    return c;
  }
};

TEST(McpTool, OffersTheRemoteToolUnderItsModelName) {
  Fixture f;
  ASSERT_TRUE(f.client);
  const auto echo = f.tool("echo");
  EXPECT_EQ(echo->spec().name, "mcp__scripted__echo");
  EXPECT_EQ(echo->spec().description, "the echo tool");
  EXPECT_EQ(echo->spec().parameters, R"({"properties":{},"type":"object"})");
  const auto result = echo->run(R"({"text":"via the tool"})", f.context());
  EXPECT_FALSE(result.is_error);
  EXPECT_EQ(result.content, "Echo: via the tool");
  EXPECT_FALSE(result.read_only);
  EXPECT_FALSE(result.truncated);
}

TEST(McpTool, CapsTheOutputHeadAndTail) {
  Fixture f;
  ASSERT_TRUE(f.client);
  const std::string text = "HEAD" + std::string(5000, '.') + "TAIL";
  const auto result = f.tool("echo", 200)->run(R"({"text":")" + text + "\"}", f.context());
  EXPECT_TRUE(result.truncated);
  EXPECT_LT(result.content.size(), 400U);
  EXPECT_EQ(result.content.rfind("Echo: HEAD", 0), 0U) << result.content;
  EXPECT_EQ(result.content.substr(result.content.size() - 4), "TAIL");
  EXPECT_NE(result.content.find("bytes omitted"), std::string::npos);
}

TEST(McpTool, ErrorsReachTheModelAsErrorResults) {
  Fixture f;
  ASSERT_TRUE(f.client);
  const auto failed = f.tool("fail")->run("{}", f.context());
  EXPECT_TRUE(failed.is_error);
  EXPECT_EQ(failed.content, "it failed");
  const auto malformed = f.tool("echo")->run("{not json", f.context());
  EXPECT_TRUE(malformed.is_error);
  EXPECT_NE(malformed.content.find("not a JSON object"), std::string::npos);
}

TEST(McpTool, ReportsProgressAndPassesACancelOn) {
  Fixture f;
  ASSERT_TRUE(f.client);
  auto context = f.context();
  std::vector<tools::ToolProgressUpdate> updates;
  context.on_progress = [&](const tools::ToolProgressUpdate& u) { updates.push_back(u); };
  EXPECT_EQ(f.tool("progress")->run("{}", context).content, "done");
  ASSERT_EQ(updates.size(), 3U);
  EXPECT_EQ(updates[1].progress, 2);
  EXPECT_EQ(updates[1].total, 3);
  EXPECT_EQ(updates[1].message, "step 2");

  auto cancelling = f.context();
  cancelling.on_progress = [&](const tools::ToolProgressUpdate&) { cancelling.cancel.cancel(); };
  const auto cancelled = f.tool("wait_cancel")->run("{}", cancelling);
  EXPECT_TRUE(cancelled.is_error);
  EXPECT_NE(cancelled.content.find("cancelled"), std::string::npos);
}

} // namespace
} // namespace ralph::mcp
