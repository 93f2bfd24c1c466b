#include "ralph/mcp/dispatcher.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <thread>

namespace ralph::mcp {
namespace {

using nlohmann::json;

// A tool that echoes its `text` argument, reports two progress steps, and, asked to `block`,
// runs until it is cancelled.
class EchoTool final : public ServerTool {
public:
  explicit EchoTool(std::string name = "echo", bool runs = false) {
    m_spec.name = std::move(name);
    m_spec.description = "echoes";
    m_spec.input_schema = R"({"type":"object","properties":{"text":{"type":"string"}}})";
    m_spec.runs_anything = runs;
  }
  const ServerToolSpec& spec() const override { return m_spec; }
  Result<ToolOutcome> call(const json& arguments, const ToolCallContext& context) override {
    if (arguments.contains("text") && !arguments["text"].is_string()) {
      return fail(ErrorKind::usage, "text: expected a string");
    }
    context.progress({.progress = 1, .total = 2, .message = "half"});
    if (arguments.value("block", false)) {
      started = true;
      while (!context.cancel.cancelled()) {
        std::this_thread::yield();
      }
      return ToolOutcome{.text = "cancelled", .is_error = true};
    }
    context.progress({.progress = 2, .total = 2});
    return ToolOutcome{.structured = json{{"echo", arguments.value("text", "")}}.dump(),
                       .text = arguments.value("text", "")};
  }
  std::atomic<bool> started{false};

private:
  ServerToolSpec m_spec;
};

struct Fixture {
  Fixture(bool read_only = false) : dispatcher(make(read_only)) {}
  static Dispatcher make(bool read_only) {
    std::vector<std::unique_ptr<ServerTool>> tools;
    tools.push_back(std::make_unique<EchoTool>("zeta", true));
    tools.push_back(std::make_unique<EchoTool>("echo"));
    return Dispatcher({.name = "ralph", .version = "9.9"}, std::move(tools), read_only);
  }
  json call(const json& message) {
    const Reply reply = dispatcher.handle(
        message.dump(), [this](const std::string& m) { sent.push_back(json::parse(m)); });
    return reply.body.empty() ? json() : json::parse(reply.body);
  }
  Dispatcher dispatcher;
  std::vector<json> sent;
};

const json k_modern_meta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                            {"io.modelcontextprotocol/clientCapabilities", json::object()}};

TEST(McpDispatcher, InitializeEchoesASupportedVersionAndOffersTheNewestOtherwise) {
  Fixture f;
  const json old = f.call({{"jsonrpc", "2.0"},
                           {"id", 1},
                           {"method", "initialize"},
                           {"params", {{"protocolVersion", "2025-06-18"}}}});
  EXPECT_EQ(old["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(old["result"]["serverInfo"]["name"], "ralph");
  EXPECT_TRUE(old["result"]["capabilities"].contains("tools"));
  const json future = f.call({{"jsonrpc", "2.0"},
                              {"id", 2},
                              {"method", "initialize"},
                              {"params", {{"protocolVersion", "2099-01-01"}}}});
  EXPECT_EQ(future["result"]["protocolVersion"], "2025-11-25");
  EXPECT_TRUE(f.call({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).is_null());
  EXPECT_EQ(f.call({{"jsonrpc", "2.0"}, {"id", "p"}, {"method", "ping"}})["result"],
            json::object());
}

TEST(McpDispatcher, DiscoverAndModernRequestsCarryResultTypeServerInfoAndCacheHints) {
  Fixture f;
  const json discover = f.call({{"jsonrpc", "2.0"},
                                {"id", 1},
                                {"method", "server/discover"},
                                {"params", {{"_meta", k_modern_meta}}}});
  EXPECT_EQ(discover["result"]["supportedVersions"], json::array({"2026-07-28"}));
  EXPECT_EQ(discover["result"]["resultType"], "complete");
  EXPECT_EQ(discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["version"], "9.9");
  const json list = f.call({{"jsonrpc", "2.0"},
                            {"id", 2},
                            {"method", "tools/list"},
                            {"params", {{"_meta", k_modern_meta}}}});
  EXPECT_EQ(list["result"]["resultType"], "complete");
  EXPECT_GT(list["result"]["ttlMs"].get<int>(), 0);
  EXPECT_EQ(list["result"]["cacheScope"], "public");
  const json legacy = f.call({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}});
  EXPECT_FALSE(legacy["result"].contains("resultType"));
  EXPECT_FALSE(legacy["result"].contains("ttlMs"));
}

TEST(McpDispatcher, UnknownModernVersionIsRefusedWithTheSupportedOnes) {
  Fixture f;
  const json reply =
      f.call({{"jsonrpc", "2.0"},
              {"id", 1},
              {"method", "tools/list"},
              {"params",
               {{"_meta",
                 {{"io.modelcontextprotocol/protocolVersion", "2030-01-01"},
                  {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}});
  EXPECT_EQ(reply["error"]["code"], -32022);
  EXPECT_EQ(reply["error"]["data"]["supported"], json::array({"2026-07-28"}));
  EXPECT_EQ(reply["error"]["data"]["requested"], "2030-01-01");
}

TEST(McpDispatcher, AnIncompleteModernEnvelopeIsInvalidParams) {
  Fixture f;
  // server/discover exists only in 2026-07-28: without the envelope there is no era to answer in.
  const json bare = f.call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "server/discover"}});
  EXPECT_EQ(bare["error"]["code"], -32602);
  EXPECT_EQ(bare["id"], 1);
  const json no_capabilities = f.call(
      {{"jsonrpc", "2.0"},
       {"id", 2},
       {"method", "tools/list"},
       {"params", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}}}});
  EXPECT_EQ(no_capabilities["error"]["code"], -32602);
  EXPECT_NE(no_capabilities["error"]["message"].get<std::string>().find("clientCapabilities"),
            std::string::npos);
  const json no_version = f.call(
      {{"jsonrpc", "2.0"},
       {"id", 3},
       {"method", "tools/list"},
       {"params", {{"_meta", {{"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}});
  EXPECT_EQ(no_version["error"]["code"], -32602);
  // A legacy call's _meta (a progress token alone) is no claim to the modern era.
  EXPECT_EQ(f.call({{"jsonrpc", "2.0"},
                    {"id", 4},
                    {"method", "tools/call"},
                    {"params",
                     {{"name", "echo"}, {"_meta", {{"progressToken", 1}}}}}})["result"]["isError"],
            false);
}

TEST(McpDispatcher, HandshakeMethodsAreGoneInTheModernEra) {
  Fixture f;
  for (const char* method : {"initialize", "ping"}) {
    const json reply = f.call({{"jsonrpc", "2.0"},
                               {"id", 9},
                               {"method", method},
                               {"params", {{"_meta", k_modern_meta}}}});
    EXPECT_EQ(reply["error"]["code"], -32601) << method;
  }
}

TEST(McpDispatcher, ToolsAreListedInTheirOrderWithSchemasAndAnnotations) {
  Fixture f;
  const json list = f.call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}});
  ASSERT_EQ(list["result"]["tools"].size(), 2U);
  EXPECT_EQ(list["result"]["tools"][0]["name"], "zeta");
  EXPECT_EQ(list["result"]["tools"][1]["name"], "echo");
  EXPECT_EQ(list["result"]["tools"][1]["inputSchema"]["type"], "object");
  EXPECT_TRUE(list["result"]["tools"][1]["annotations"].contains("readOnlyHint"));
  EXPECT_EQ(f.call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}), list);
  EXPECT_EQ(f.call({{"jsonrpc", "2.0"},
                    {"id", 2},
                    {"method", "tools/list"},
                    {"params", {{"cursor", "x"}}}})["error"]["code"],
            -32602);
}

TEST(McpDispatcher, CallReturnsStructuredContentAndProgressWhenAsked) {
  Fixture f;
  const json reply = f.call({{"jsonrpc", "2.0"},
                             {"id", 7},
                             {"method", "tools/call"},
                             {"params",
                              {{"name", "echo"},
                               {"arguments", {{"text", "hi"}}},
                               {"_meta", {{"progressToken", "tok"}}}}}});
  EXPECT_EQ(reply["id"], 7);
  EXPECT_EQ(reply["result"]["content"][0]["text"], "hi");
  EXPECT_EQ(reply["result"]["structuredContent"]["echo"], "hi");
  EXPECT_EQ(reply["result"]["isError"], false);
  ASSERT_EQ(f.sent.size(), 2U);
  EXPECT_EQ(f.sent[0]["method"], "notifications/progress");
  EXPECT_EQ(f.sent[0]["params"]["progressToken"], "tok");
  EXPECT_EQ(f.sent[0]["params"]["message"], "half");
  EXPECT_EQ(f.sent[1]["params"]["progress"], 2);
  f.sent.clear();
  f.call({{"jsonrpc", "2.0"}, {"id", 8}, {"method", "tools/call"}, {"params", {{"name", "echo"}}}});
  EXPECT_TRUE(f.sent.empty()); // no progressToken: no progress
}

TEST(McpDispatcher, BadCallsAreInvalidParams) {
  Fixture f;
  EXPECT_EQ(f.call({{"jsonrpc", "2.0"},
                    {"id", 1},
                    {"method", "tools/call"},
                    {"params", {{"name", "nope"}}}})["error"]["code"],
            -32602);
  EXPECT_EQ(
      f.call({{"jsonrpc", "2.0"},
              {"id", 2},
              {"method", "tools/call"},
              {"params", {{"name", "echo"}, {"arguments", {{"text", 3}}}}}})["error"]["message"],
      "Invalid params: text: expected a string");
  EXPECT_EQ(f.call({{"jsonrpc", "2.0"},
                    {"id", 3},
                    {"method", "tools/call"},
                    {"params", {{"name", "echo"}, {"arguments", "x"}}}})["error"]["code"],
            -32602);
}

TEST(McpDispatcher, ReadOnlyRefusesToolsThatRunSomething) {
  Fixture f(true);
  const json refused = f.call(
      {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "zeta"}}}});
  EXPECT_EQ(refused["result"]["isError"], true);
  EXPECT_NE(refused["result"]["content"][0]["text"].get<std::string>().find("read-only"),
            std::string::npos);
  EXPECT_EQ(f.call({{"jsonrpc", "2.0"},
                    {"id", 2},
                    {"method", "tools/call"},
                    {"params", {{"name", "echo"}}}})["result"]["isError"],
            false);
}

TEST(McpDispatcher, MalformedMessagesGetJsonRpcErrors) {
  Fixture f;
  const auto code = [&](std::string_view text) {
    const Reply reply = f.dispatcher.handle(text, {});
    return json::parse(reply.body)["error"]["code"].get<int>();
  };
  EXPECT_EQ(code("{not json"), -32700);
  EXPECT_EQ(code("42"), -32600);
  EXPECT_EQ(code(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])"), -32600);
  EXPECT_EQ(code(R"({"jsonrpc":"1.0","id":1,"method":"ping"})"), -32600);
  EXPECT_EQ(code(R"({"jsonrpc":"2.0","id":1})"), -32600);
  EXPECT_EQ(code(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})"), -32600);
  EXPECT_EQ(code(R"({"jsonrpc":"2.0","id":1,"method":"nope/nope"})"), -32601);
  EXPECT_EQ(code(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})"), -32602);
  const std::string huge = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":")" +
                           std::string(k_max_message_bytes, 'a') + "\"}}";
  const Reply big = f.dispatcher.handle(huge, {});
  EXPECT_EQ(json::parse(big.body)["error"]["code"], -32600);
  EXPECT_NE(big.body.find("4 MiB"), std::string::npos);
  // A client's response to nothing, and unknown notifications: no answer at all.
  EXPECT_TRUE(f.dispatcher.handle(R"({"jsonrpc":"2.0","id":5,"result":{}})", {}).body.empty());
  EXPECT_TRUE(
      f.dispatcher.handle(R"({"jsonrpc":"2.0","method":"notifications/x"})", {}).body.empty());
}

TEST(McpDispatcher, CancelledNotificationStopsTheRunningCall) {
  Fixture f;
  auto* tool = dynamic_cast<EchoTool*>(f.dispatcher.tools()[1].get());
  ASSERT_NE(tool, nullptr);
  Reply reply;
  std::thread call([&] {
    reply = f.dispatcher.handle(
        R"({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"echo","arguments":{"block":true}}})",
        {});
  });
  while (!tool->started) {
    std::this_thread::yield();
  }
  f.dispatcher.handle(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}})", {});
  call.join();
  EXPECT_EQ(json::parse(reply.body)["result"]["content"][0]["text"], "cancelled");
}

TEST(McpDispatcher, CancelAllStopsRunningCalls) {
  Fixture f;
  auto* tool = dynamic_cast<EchoTool*>(f.dispatcher.tools()[1].get());
  Reply reply;
  std::thread call([&] {
    reply = f.dispatcher.handle(
        R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"block":true}}})",
        {});
  });
  while (!tool->started) {
    std::this_thread::yield();
  }
  f.dispatcher.cancel_all();
  call.join();
  EXPECT_EQ(json::parse(reply.body)["result"]["isError"], true);
}

} // namespace
} // namespace ralph::mcp
