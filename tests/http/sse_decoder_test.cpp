#include "sse_fixtures.h"
#include "support/stream_chunks.h"

#include "ralph/http/sse_decoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ralph::http {

bool operator==(const SseEvent& a, const SseEvent& b) {
  return a.event == b.event && a.data == b.data && a.id == b.id;
}

void PrintTo(const SseEvent& e, std::ostream* os) {
  *os << "{event=" << e.event << ", data=" << e.data << ", id=" << e.id << "}";
}

namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

SseEvent message(std::string data, std::string id = "") {
  return SseEvent{"message", std::move(data), std::move(id)};
}

// Feeds `chunks` one after another into a fresh decoder and returns what it dispatched.
std::vector<SseEvent> decode_chunks(const std::vector<std::string_view>& chunks) {
  std::vector<SseEvent> events;
  SseDecoder decoder([&](const SseEvent& e) { events.push_back(e); });
  for (auto chunk : chunks) {
    decoder.feed(chunk);
  }
  return events;
}

std::vector<SseEvent> decode(std::string_view stream) {
  return decode_chunks({stream});
}

std::vector<SseEvent> decode_bytewise(std::string_view stream) {
  return decode_chunks(ralph::testing::bytewise(stream));
}

std::vector<SseEvent> decode_random_splits(std::string_view stream, unsigned seed) {
  return decode_chunks(ralph::testing::random_splits(stream, seed));
}

// Every split of `stream` into two feeds gives the same events as one feed.
void expect_split_invariant(std::string_view stream) {
  const auto whole = decode(stream);
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    EXPECT_EQ(decode_chunks({stream.substr(0, cut), stream.substr(cut)}), whole) << "cut " << cut;
  }
  EXPECT_EQ(decode_bytewise(stream), whole);
}

TEST(SseDecoder, DispatchesOnBlankLineWithDefaultEventName) {
  EXPECT_THAT(decode("data: {\"a\":1}\n\n"), ElementsAre(message("{\"a\":1}")));
}

TEST(SseDecoder, JoinsMultiLineDataWithNewline) {
  EXPECT_THAT(decode("data: {\"a\":\ndata: 1}\n\n"), ElementsAre(message("{\"a\":\n1}")));
}

TEST(SseDecoder, IgnoresCommentsAndCommentPlusBlankLineDispatchesNothing) {
  const std::string_view stream = ": ping\n\n"
                                  ":\n\n"
                                  "id: 7\ndata: one\n\n"
                                  ": OPENROUTER PROCESSING\n\n"
                                  ": keepalive\n"
                                  "data: two\n\n"
                                  ": ping\n\n";
  EXPECT_THAT(decode(stream), ElementsAre(message("one", "7"), message("two", "7")));
}

TEST(SseDecoder, AcceptsLfCrLfAndLoneCrLineEndings) {
  const auto expected = ElementsAre(message("a"), message("b"));
  EXPECT_THAT(decode("data: a\n\ndata: b\n\n"), expected);
  EXPECT_THAT(decode("data: a\r\n\r\ndata: b\r\n\r\n"), expected);
  EXPECT_THAT(decode("data: a\r\rdata: b\r\r"), expected);
}

TEST(SseDecoder, AcceptsMixedLineEndingsInOneStream) {
  EXPECT_THAT(decode("data: a\r\n\ndata: b\r\rdata: c\n\r\n"),
              ElementsAre(message("a"), message("b"), message("c")));
}

TEST(SseDecoder, SplitsCrLfAcrossChunksWithoutExtraDispatch) {
  // "...}\r" | "\n\n": the LF completes the CRLF; only the second LF is the blank line.
  EXPECT_THAT(decode_chunks({"data: x\r", "\ndata: y\r", "\n\r", "\n"}),
              ElementsAre(message("x\ny")));
  expect_split_invariant("data: x\r\ndata: y\r\n\r\nevent: e\r\ndata: z\r\n\r\n");
}

TEST(SseDecoder, StripsLeadingBomOnlyOnce) {
  EXPECT_THAT(decode("\xEF\xBB\xBF"
                     "data: a\n\n"),
              ElementsAre(message("a")));
  // A second BOM is part of the first line: the field name is no longer "data".
  EXPECT_THAT(decode("\xEF\xBB\xBF\xEF\xBB\xBF"
                     "data: a\n\n"),
              IsEmpty());
  expect_split_invariant("\xEF\xBB\xBF"
                         "data: a\n\n");
  // Bytes that only start like a BOM are kept.
  EXPECT_THAT(decode_chunks({"\xEF", "\xBB", "x\n\ndata: b\n\n"}), ElementsAre(message("b")));
}

TEST(SseDecoder, DropsExactlyOneSpaceAfterColon) {
  EXPECT_THAT(decode("data:x\n\ndata: x\n\ndata:  x\n\n"),
              ElementsAre(message("x"), message("x"), message(" x")));
}

TEST(SseDecoder, SplitsOnlyAtFirstColon) {
  EXPECT_THAT(decode("data: {\"t\":\"a:b\"}\n\n"), ElementsAre(message("{\"t\":\"a:b\"}")));
}

TEST(SseDecoder, KeepsEventNameIdAndRetry) {
  std::vector<SseEvent> events;
  SseDecoder decoder([&](const SseEvent& e) { events.push_back(e); });
  decoder.feed("event: content_block_delta\nid: 42\nretry: 3000\ndata: d1\n\ndata: d2\n\n");
  EXPECT_THAT(events, ElementsAre(SseEvent{"content_block_delta", "d1", "42"},
                                  SseEvent{"message", "d2", "42"}));
  EXPECT_EQ(decoder.retry_ms(), 3000);
}

TEST(SseDecoder, IgnoresInvalidRetryAndIdWithNul) {
  std::vector<SseEvent> events;
  SseDecoder decoder([&](const SseEvent& e) { events.push_back(e); });
  decoder.feed("id: 1\nretry: 12x\ndata: a\n\n");
  decoder.feed(std::string_view("id: 2\0z\ndata: b\n\n", 18));
  EXPECT_THAT(events, ElementsAre(message("a", "1"), message("b", "1")));
  EXPECT_EQ(decoder.retry_ms(), std::nullopt);
}

TEST(SseDecoder, DoesNotDispatchEmptyData) {
  EXPECT_THAT(decode("data:\n\ndata: \n\nevent: ping\n\nid: 3\n\ndata: real\n\n"),
              ElementsAre(message("real", "3")));
}

TEST(SseDecoder, EventNameDoesNotLeakIntoNextEvent) {
  EXPECT_THAT(decode("event: ping\n\ndata: x\n\n"), ElementsAre(message("x")));
}

TEST(SseDecoder, LineWithoutColonIsFieldWithEmptyValue) {
  EXPECT_THAT(decode("data\ndata: x\n\n"), ElementsAre(message("\nx")));
}

TEST(SseDecoder, HandlesDataLineOverOneMebibyte) {
  const std::string payload(1'500'000, 'q');
  const std::string stream = "data: " + payload + "\n\n";
  EXPECT_THAT(decode(stream), ElementsAre(message(payload)));
  EXPECT_THAT(decode_bytewise(stream), ElementsAre(message(payload)));
}

TEST(SseDecoder, KeepsMultiByteUtf8SplitAcrossFeeds) {
  // é (2 bytes), € (3 bytes), 😀 (4 bytes): every cut inside each must reassemble.
  const std::string_view stream = "data: {\"t\":\"\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"}\n\n";
  EXPECT_THAT(decode(stream),
              ElementsAre(message("{\"t\":\"\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"}")));
  expect_split_invariant(stream);
}

TEST(SseDecoder, SurfacesLlamaCppErrorField) {
  EXPECT_THAT(
      decode("data: {\"a\":1}\n\nerror: {\"code\":500,\"message\":\"boom\"}\n\n"),
      ElementsAre(message("{\"a\":1}"),
                  SseEvent{.event = "error", .data = "{\"code\":500,\"message\":\"boom\"}"}));
}

TEST(SseDecoder, IgnoresOtherUnknownFields) {
  EXPECT_THAT(decode("foo: bar\ndata: x\n\n"), ElementsAre(message("x")));
}

TEST(SseDecoder, ReportsPartialEventAtEndOfStream) {
  std::vector<SseEvent> events;
  SseDecoder decoder([&](const SseEvent& e) { events.push_back(e); });
  EXPECT_FALSE(decoder.has_partial_event());
  decoder.feed("data: done\n\n: ping\n");
  EXPECT_FALSE(decoder.has_partial_event());
  decoder.feed("data: {\"trunc");
  EXPECT_TRUE(decoder.has_partial_event());
  decoder.feed("ated\"}\n");
  EXPECT_TRUE(decoder.has_partial_event());
  EXPECT_THAT(events, ElementsAre(message("done")));
  decoder.feed("\n");
  EXPECT_FALSE(decoder.has_partial_event());
  EXPECT_EQ(events.size(), 2U);
}

class SseFixtureReplay : public ::testing::TestWithParam<std::string_view> {};

TEST_P(SseFixtureReplay, SameEventsForAnySplit) {
  const std::string_view stream = GetParam();
  const auto whole = decode(stream);
  ASSERT_FALSE(whole.empty());
  EXPECT_EQ(decode_bytewise(stream), whole);
  for (unsigned seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(decode_random_splits(stream, seed), whole) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Providers, SseFixtureReplay,
                         ::testing::Values(ralph::testing::k_openai_stream,
                                           ralph::testing::k_anthropic_stream));

TEST(SseDecoder, DecodesOpenAiFixture) {
  const auto events = decode(ralph::testing::k_openai_stream);
  ASSERT_EQ(events.size(), 12U);
  for (const auto& e : events) {
    EXPECT_EQ(e.event, "message");
  }
  EXPECT_THAT(events[1].data, ::testing::HasSubstr(R"("content":"Checking both")"));
  EXPECT_EQ(events.back().data, "[DONE]");
}

TEST(SseDecoder, DecodesAnthropicFixture) {
  const auto events = decode(ralph::testing::k_anthropic_stream);
  std::vector<std::string> names;
  for (const auto& e : events) {
    names.push_back(e.event);
  }
  EXPECT_THAT(names,
              ElementsAre("message_start", "content_block_start", "ping", "content_block_delta",
                          "content_block_delta", "content_block_stop", "content_block_start",
                          "content_block_delta", "content_block_delta", "content_block_delta",
                          "content_block_stop", "message_delta", "message_stop"));
  EXPECT_EQ(events[2].data, R"({"type": "ping"})");
}

TEST(SseDecoder, CrLfVersionOfFixtureMatchesLfVersion) {
  std::string crlf;
  for (char c : ralph::testing::k_anthropic_stream) {
    if (c == '\n') {
      crlf += "\r\n";
    } else {
      crlf += c;
    }
  }
  EXPECT_EQ(decode_random_splits(crlf, 7), decode(ralph::testing::k_anthropic_stream));
  EXPECT_EQ(decode_bytewise(crlf), decode(ralph::testing::k_anthropic_stream));
}

} // namespace
} // namespace ralph::http
