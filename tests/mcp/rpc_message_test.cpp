#include "mcp/line_splitter.h"
#include "mcp/rpc_message.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ralph::mcp {
namespace {

TEST(RpcMessage, ParsesRequestsNotificationsAndResponses) {
  auto request = parse_rpc_message(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
  ASSERT_TRUE(request) << request.error().message;
  EXPECT_EQ(request->kind, RpcKind::request);
  EXPECT_EQ(request->id, 7);
  auto notification =
      parse_rpc_message(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"a":1}})");
  ASSERT_TRUE(notification);
  EXPECT_EQ(notification->kind, RpcKind::notification);
  EXPECT_EQ(notification->params["a"], 1);
  auto error = parse_rpc_message(
      R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found"}})");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind, RpcKind::response);
  ASSERT_TRUE(error->error);
  EXPECT_EQ(error->error->code, -32601);
  EXPECT_EQ(error->error->message, "Method not found");
}

TEST(RpcMessage, RejectsMalformedMessagesSayingWhy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json at all", "not JSON"},
      {"[1,2]", "not a JSON object"},
      {R"({"id":1,"result":{}})", "jsonrpc"},
      {R"({"jsonrpc":"1.0","id":1,"result":{}})", "jsonrpc"},
      {R"({"jsonrpc":"2.0","method":3})", "\"method\" is not a string"},
      {R"({"jsonrpc":"2.0","id":{},"method":"x"})", "\"id\""},
      {R"({"jsonrpc":"2.0","method":"x","params":"s"})", "\"params\""},
      {R"({"jsonrpc":"2.0"})", "neither"},
      {R"({"jsonrpc":"2.0","id":1})", "exactly one"},
      {R"({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1}})", "exactly one"},
      {R"({"jsonrpc":"2.0","id":1,"error":{"message":"no code"}})", "code"},
  };
  for (const auto& [text, why] : cases) {
    const auto parsed = parse_rpc_message(text);
    ASSERT_FALSE(parsed) << text;
    EXPECT_EQ(parsed.error().kind, ErrorKind::parse) << text;
    EXPECT_NE(parsed.error().message.find(why), std::string::npos)
        << text << " -> " << parsed.error().message;
  }
}

TEST(RpcMessage, SerializesOnOneLineEvenWithNewlinesInStrings) {
  const std::string text = rpc_request_text(3, "tools/call", {{"text", "a\nb"}});
  EXPECT_EQ(text.find('\n'), std::string::npos);
  const auto back = parse_rpc_message(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->params["text"], "a\nb");
}

TEST(LineSplitter, GivesTheSameLinesFedByteByByte) {
  const std::string stream = "{\"a\":1}\r\n{\"b\":2}\n\npartial";
  std::vector<std::string> whole;
  std::vector<std::string> bytewise;
  LineSplitter one(
      1024, [&](std::string_view line) { whole.emplace_back(line); }, [](std::size_t) {});
  one.feed(stream);
  LineSplitter two(
      1024, [&](std::string_view line) { bytewise.emplace_back(line); }, [](std::size_t) {});
  for (const char c : stream) {
    two.feed(std::string_view(&c, 1));
  }
  EXPECT_EQ(whole, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", ""}));
  EXPECT_EQ(bytewise, whole);
}

TEST(LineSplitter, DropsAnOversizedLineWholeAndKeepsGoing) {
  std::vector<std::string> lines;
  std::vector<std::size_t> dropped;
  LineSplitter splitter(
      8, [&](std::string_view line) { lines.emplace_back(line); },
      [&](std::size_t bytes) { dropped.push_back(bytes); });
  splitter.feed("0123");
  splitter.feed("456789abc");
  splitter.feed("def\nok\n");
  EXPECT_EQ(lines, std::vector<std::string>{"ok"});
  EXPECT_EQ(dropped, std::vector<std::size_t>{16});
}

} // namespace
} // namespace ralph::mcp
