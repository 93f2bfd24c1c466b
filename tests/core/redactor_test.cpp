#include "ralph/core/redacting_sink.h"
#include "ralph/core/redactor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ralph {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Redactor, MasksValuesOfFourCharactersOrMore) {
  Redactor redactor;
  EXPECT_TRUE(redactor.add("q7Zx"));
  EXPECT_FALSE(redactor.add("abc"));
  EXPECT_EQ(redactor.redact("pin q7Zx, not abc"), "pin [REDACTED], not abc");
}

TEST(Redactor, NamesSecretLookingVariablesTooShortToRedact) {
  std::vector<std::string> entries = {"SHORT_TOKEN=ab", "EMPTY_KEY=", "LONG_KEY=abcdef",
                                      "HOME=/home/x"};
  std::vector<char*> environment;
  for (auto& entry : entries) {
    environment.push_back(entry.data());
  }
  environment.push_back(nullptr);
  Redactor redactor;
  redactor.add_environment(environment.data());
  EXPECT_EQ(redactor.too_short(), std::vector<std::string>{"SHORT_TOKEN"});
  EXPECT_EQ(redactor.redact("abcdef /home/x"), "[REDACTED] /home/x");
}

TEST(Redactor, MasksASecretWithQuotesAndBackslashesInsideJson) {
  const std::string secret = R"(pa"ss\word-42)";
  Redactor redactor;
  redactor.add(secret);
  const nlohmann::json value = {
      {"text", "the password is " + secret},
      {"nested", {{"arguments", nlohmann::json({{"p", secret}}).dump()}}}};
  const std::string encoded = value.dump();
  const std::string redacted = redactor.redact_json(encoded);
  EXPECT_THAT(redacted, Not(HasSubstr(R"(pa\"ss\\word-42)")));
  EXPECT_THAT(redacted, Not(HasSubstr(R"(pa\\\"ss\\\\word-42)")));
  const auto parsed = nlohmann::json::parse(redacted);
  EXPECT_EQ(parsed["text"], "the password is [REDACTED]");
  EXPECT_EQ(nlohmann::json::parse(parsed["nested"]["arguments"].get<std::string>())["p"],
            "[REDACTED]");
}

TEST(Redactor, JsonNestedTooDeepIsRedactedAsTextWithoutRecursing) {
  Redactor redactor;
  redactor.add("0123456789");
  const std::string deep = std::string(70'000, '[') + "\"0123456789\"" + std::string(70'000, ']');
  const std::string redacted = redactor.redact_json(deep);
  EXPECT_EQ(redacted, std::string(70'000, '[') + "\"[REDACTED]\"" + std::string(70'000, ']'));
}

TEST(Redactor, LeavesJsonWithoutSecretsByteForByte) {
  Redactor redactor;
  redactor.add("0123456789");
  const std::string text = R"({"b": 1,   "a": "x"})";
  EXPECT_EQ(redactor.redact_json(text), text);
}

// Every way of cutting a text into pieces (byte by byte, and at each single point): the pieces
// shown, joined, never hold a secret and equal the whole text redacted.
TEST(StreamRedactor, NoSecretSurvivesAnyCutOfTheStream) {
  Redactor redactor;
  redactor.add("sk-live-SECRET");
  redactor.add("sk-live"); // a secret that starts another
  const std::string text = "key sk-live-SECRET and sk-live then sk-liv end sk-live-SECRE";
  const std::string whole = redactor.redact(text);
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    StreamRedactor stream(redactor);
    std::string shown = stream.feed(text.substr(0, cut));
    shown += stream.feed(text.substr(cut));
    shown += stream.finish();
    EXPECT_EQ(shown, whole) << "cut at " << cut;
  }
  StreamRedactor stream(redactor);
  std::string shown;
  for (const char byte : text) {
    shown += stream.feed(std::string(1, byte));
    EXPECT_THAT(shown, Not(HasSubstr("sk-live-SECRET")));
  }
  shown += stream.finish();
  EXPECT_EQ(shown, whole);
}

TEST(StreamRedactor, HoldsBackOnlyWhatMayStartASecret) {
  Redactor redactor;
  redactor.add("SECRETVALUE");
  StreamRedactor stream(redactor);
  EXPECT_EQ(stream.feed("plain text "), "plain text ");
  EXPECT_EQ(stream.feed("then SEC"), "then ");
  EXPECT_EQ(stream.feed("OND"), "SECOND");
  EXPECT_FALSE(stream.holding());
}

class Collect final : public EventSink {
public:
  void on_event(const Event& event) override { events.push_back(event); }
  std::vector<Event> events;
};

TEST(RedactingSink, JoinedDeltasHoldNoSecretAndOtherEventsAreRedacted) {
  Redactor redactor;
  redactor.add("tok_ABCDEFGH");
  Collect collected;
  RedactingSink sink(collected, redactor);
  for (const char* piece : {"the token is tok_AB", "CDE", "FGH, and the tok_"}) {
    sink.on_event(Event{.iteration = 1, .step = 1, .payload = event::TextDelta{.text = piece}});
  }
  sink.on_event(Event{.payload = event::Warning{.text = "saw tok_ABCDEFGH"}});
  std::string joined;
  for (const auto& event : collected.events) {
    if (std::holds_alternative<event::TextDelta>(event.payload)) {
      joined += std::get<event::TextDelta>(event.payload).text;
      EXPECT_EQ(event.iteration, 1);
    }
  }
  EXPECT_EQ(joined, "the token is [REDACTED], and the tok_");
  const EventPayload& last = collected.events.back().payload;
  ASSERT_TRUE(std::holds_alternative<event::Warning>(last));
  EXPECT_EQ(std::get<event::Warning>(last).text, "saw [REDACTED]");
}

} // namespace
} // namespace ralph
