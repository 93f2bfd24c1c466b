// The fake provider's own output, read raw: it must match the wire-format notes, since every
// provider and end-to-end test trusts it.
#include "fake_provider/fake_provider_server.h"

#include "ralph/http/curl_transport.h"
#include "ralph/http/sse_decoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <thread>

namespace ralph::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

struct Raw {
  Result<http::Response> response;
  std::string body; // streamed bytes
};

class FakeProviderServerTest : public ::testing::Test {
protected:
  Raw post(const std::string& path, json body, http::Headers headers = {}) {
    http::Request request;
    request.url = server.base_url() + path;
    request.headers = std::move(headers);
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = body.dump();
    Raw raw{.response = fail(ErrorKind::internal, "not sent")};
    raw.response = transport.send(
        request,
        [&raw](std::string_view chunk) {
          raw.body.append(chunk);
          return true;
        },
        cancel);
    return raw;
  }

  static std::vector<http::SseEvent> events(const std::string& body) {
    std::vector<http::SseEvent> out;
    http::SseDecoder decoder([&](const http::SseEvent& e) { out.push_back(e); });
    decoder.feed(body);
    return out;
  }

  FakeProviderServer server;
  http::CurlTransport transport;
  CancelToken cancel;
};

FakeTurn sample_turn() {
  FakeTurn turn;
  turn.text = "Héllo wörld, this text is cut into several pieces.";
  turn.thinking = "Short plan.";
  turn.tool_calls = {{.name = "write_file", .arguments = R"({"path":"a.txt","content":"x"})"}};
  return turn;
}

TEST_F(FakeProviderServerTest, OpenAiStreamFollowsTheWireFormat) {
  server.push(sample_turn());
  const Raw raw =
      post("/v1/chat/completions",
           {{"model", "m"}, {"stream", true}, {"stream_options", {{"include_usage", true}}}});
  ASSERT_TRUE(raw.response) << raw.response.error().message;
  EXPECT_EQ(raw.response->status, 200);
  EXPECT_EQ(raw.response->header("content-type"), "text/event-stream");
  EXPECT_EQ(raw.response->header("x-request-id"), "req_fake_1");
  const auto all = events(raw.body);
  ASSERT_GE(all.size(), 5u);
  EXPECT_EQ(all.back().data, "[DONE]");
  std::string text;
  std::string arguments;
  for (std::size_t i = 0; i + 1 < all.size(); ++i) {
    EXPECT_EQ(all[i].event, "message");
    const json chunk = json::parse(all[i].data);
    EXPECT_EQ(chunk["object"], "chat.completion.chunk");
    EXPECT_EQ(chunk["model"], "m");
    if (i + 2 == all.size()) {
      EXPECT_TRUE(chunk["choices"].empty()) << "the usage chunk";
      EXPECT_GT(chunk["usage"]["prompt_tokens"].get<int>(), 0);
      continue;
    }
    EXPECT_TRUE(chunk["usage"].is_null());
    const json& delta = chunk["choices"][0]["delta"];
    text += delta.value("content", "");
    if (delta.contains("tool_calls")) {
      arguments += delta["tool_calls"][0]["function"].value("arguments", "");
    }
  }
  EXPECT_EQ(json::parse(all[0].data)["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(text, "Héllo wörld, this text is cut into several pieces.");
  EXPECT_EQ(arguments, R"({"path":"a.txt","content":"x"})");
  EXPECT_EQ(json::parse(all[all.size() - 3].data)["choices"][0]["finish_reason"], "tool_calls");
}

TEST_F(FakeProviderServerTest, OpenAiUsageChunkOnlyWhenAskedFor) {
  server.push(sample_turn());
  const Raw raw = post("/v1/chat/completions", {{"model", "m"}, {"stream", true}});
  ASSERT_TRUE(raw.response);
  for (const auto& event : events(raw.body)) {
    if (event.data != "[DONE]") {
      const json chunk = json::parse(event.data);
      EXPECT_FALSE(chunk.contains("usage")) << event.data;
      EXPECT_FALSE(chunk["choices"].empty());
    }
  }
}

TEST_F(FakeProviderServerTest, OpenAiWholeBody) {
  server.push(sample_turn());
  const Raw raw = post("/chat/completions", {{"model", "m"}});
  ASSERT_TRUE(raw.response);
  const json body = json::parse(raw.body); // a 2xx body goes to the sink
  EXPECT_EQ(body["object"], "chat.completion");
  const json& message = body["choices"][0]["message"];
  EXPECT_EQ(message["content"], "Héllo wörld, this text is cut into several pieces.");
  EXPECT_EQ(message["tool_calls"][0]["function"]["arguments"], R"({"path":"a.txt","content":"x"})");
  EXPECT_EQ(message["tool_calls"][0]["id"], "call_fake_1");
  EXPECT_EQ(message["reasoning_content"], "Short plan.");
  EXPECT_EQ(body["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(body["usage"]["total_tokens"].get<int>(),
            body["usage"]["prompt_tokens"].get<int>() +
                body["usage"]["completion_tokens"].get<int>());
}

TEST_F(FakeProviderServerTest, AnthropicStreamFollowsTheWireFormat) {
  server.push(sample_turn());
  const Raw raw = post("/v1/messages", {{"model", "claude-t"}, {"stream", true}});
  ASSERT_TRUE(raw.response) << raw.response.error().message;
  EXPECT_EQ(raw.response->header("request-id"), "req_fake_1");
  const auto all = events(raw.body);
  ASSERT_GE(all.size(), 8u);
  EXPECT_EQ(all.front().event, "message_start");
  EXPECT_EQ(all.back().event, "message_stop");
  std::vector<std::string> block_types;
  std::string signature;
  for (const auto& event : all) {
    const json payload = json::parse(event.data);
    EXPECT_EQ(payload["type"], event.event) << "event name equals the JSON type";
    if (event.event == "content_block_start") {
      block_types.push_back(payload["content_block"]["type"]);
      EXPECT_EQ(payload["index"].get<std::size_t>(), block_types.size() - 1);
    }
    if (event.event == "content_block_delta" && payload["delta"]["type"] == "signature_delta") {
      signature = payload["delta"]["signature"];
    }
  }
  EXPECT_EQ(block_types, (std::vector<std::string>{"thinking", "text", "tool_use"}));
  EXPECT_FALSE(signature.empty());
}

TEST_F(FakeProviderServerTest, AnthropicWholeBodyHasToolInputAsAnObject) {
  server.push(sample_turn());
  const Raw raw = post("/v1/messages", {{"model", "claude-t"}, {"stream", false}});
  ASSERT_TRUE(raw.response);
  const json body = json::parse(raw.body);
  EXPECT_EQ(body["type"], "message");
  EXPECT_EQ(body["content"][0]["type"], "thinking");
  EXPECT_FALSE(body["content"][0]["signature"].get<std::string>().empty());
  EXPECT_EQ(body["content"][2]["input"], json::parse(R"({"path":"a.txt","content":"x"})"));
  EXPECT_EQ(body["stop_reason"], "tool_use");
}

TEST_F(FakeProviderServerTest, ChunkSizeChangesTheWritesNotTheBytes) {
  std::vector<std::string> bodies;
  for (std::size_t size : {0, 1, 3, 1000}) {
    server.set_chunk_size(size);
    FakeTurn turn = sample_turn();
    turn.tool_calls[0].id = "toolu_same";
    server.push(turn);
    bodies.push_back(post("/v1/messages", {{"model", "m"}, {"stream", true}}).body);
  }
  // The message id names the request; everything after message_start must be identical.
  for (auto& body : bodies) {
    body.erase(0, body.find("event: content_block_start"));
  }
  EXPECT_EQ(bodies[0], bodies[1]);
  EXPECT_EQ(bodies[0], bodies[2]);
  EXPECT_EQ(bodies[0], bodies[3]);
}

TEST_F(FakeProviderServerTest, RecordsRequestsWithLowerCaseHeaderNames) {
  server.push(sample_turn());
  post("/v1/chat/completions", {{"model", "m"}}, {{"Authorization", "Bearer k"}});
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].headers.at("authorization"), "Bearer k");
  EXPECT_EQ(json::parse(requests[0].body)["model"], "m");
  EXPECT_EQ(server.turns_left(), 0u);
}

TEST_F(FakeProviderServerTest, MissingTurnIsAClear500) {
  const Raw raw = post("/v1/chat/completions", {{"model", "m"}});
  ASSERT_TRUE(raw.response);
  EXPECT_EQ(raw.response->status, 500);
  EXPECT_EQ(raw.response->header("x-should-retry"), "false");
  EXPECT_THAT(raw.response->body, HasSubstr("no turn queued for request #1"));
}

TEST_F(FakeProviderServerTest, UnknownPathIsA404AndRecorded) {
  const Raw raw = post("/v2/whatever", {{"model", "m"}});
  ASSERT_TRUE(raw.response);
  EXPECT_EQ(raw.response->status, 404);
  EXPECT_EQ(server.requests().at(0).path, "/v2/whatever");
}

// Side requests of the agent CLIs (Claude Code's `HEAD /api/hello`, which httplib routes with
// GET) must show up in requests().
TEST_F(FakeProviderServerTest, GetIsA404AndRecordedWithItsMethod) {
  http::Request request;
  request.method = "GET";
  request.url = server.base_url() + "/api/hello";
  const auto response = transport.send(request, nullptr, cancel);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 404);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].path, "/api/hello");
}

TEST_F(FakeProviderServerTest, DropClosesTheConnectionBeforeTheEnd) {
  FakeTurn turn = sample_turn();
  turn.fault = Fault::drop_mid_stream;
  server.push(turn);
  const Raw raw = post("/v1/chat/completions", {{"model", "m"}, {"stream", true}});
  ASSERT_FALSE(raw.response);
  EXPECT_EQ(raw.response.error().kind, ErrorKind::network);
  EXPECT_THAT(raw.body, HasSubstr("data: {"));
  EXPECT_THAT(raw.body, ::testing::Not(HasSubstr("[DONE]")));
  EXPECT_THAT(raw.body, ::testing::Not(HasSubstr("finish_reason\":\"")));
}

TEST_F(FakeProviderServerTest, QueuedTurnsAnswerRequestsInOrderFaultsIncluded) {
  FakeTurn limited;
  limited.fault = Fault::http_429;
  limited.retry_after_ms = 30;
  server.push(limited);
  server.push(sample_turn());
  const Raw first = post("/v1/messages", {{"model", "m"}});
  const Raw second = post("/v1/messages", {{"model", "m"}});
  ASSERT_TRUE(first.response && second.response);
  EXPECT_EQ(first.response->status, 429);
  EXPECT_EQ(first.response->header("retry-after-ms"), "30");
  EXPECT_EQ(json::parse(first.response->body)["error"]["type"], "rate_limit_error");
  EXPECT_EQ(second.response->status, 200);
  EXPECT_EQ(json::parse(second.body)["type"], "message");
}

TEST(FakeProviderServerLifetime, DestructionEndsAStalledAnswer) {
  auto server = std::make_unique<FakeProviderServer>();
  FakeTurn slow;
  slow.fault = Fault::slow_first_byte;
  slow.first_byte_delay = std::chrono::minutes(10);
  server->push(slow);
  const std::string url = server->base_url() + "/v1/chat/completions";
  std::thread client([url] {
    http::CurlTransport transport;
    http::Request request;
    request.url = url;
    request.body = R"({"model":"m"})";
    (void)transport.send(request, {}, CancelToken{});
  });
  ASSERT_TRUE(server->wait_for_requests(1, std::chrono::minutes(1)));
  server.reset(); // must not wait ten minutes
  client.join();
}

} // namespace
} // namespace ralph::testing
