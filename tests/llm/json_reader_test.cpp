#include "http/sse_fixtures.h"
#include "llm/json_reader.h"
#include "stream_fixtures.h"

#include "ralph/http/sse_decoder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>
#include <string>
#include <vector>

namespace ralph::llm {
namespace {

bool valid(std::string_view text) {
  JsonReader reader(text);
  reader.skip();
  return reader.finish();
}

std::string string_value(std::string_view text) {
  JsonReader reader(text);
  std::string_view value;
  EXPECT_TRUE(reader.read_string(value)) << text;
  std::string out(value);
  EXPECT_TRUE(reader.finish()) << text;
  return out;
}

TEST(JsonReader, WalksNestedValues) {
  JsonReader reader(R"( {"a": [1, -2.5e1, {"b": "x"}], "c": null, "d": true, "e": "y"} )");
  ASSERT_TRUE(reader.enter_object());
  std::string_view key;
  std::vector<std::int64_t> numbers;
  std::string b;
  std::string e;
  while (reader.next_key(key)) {
    if (key == "a") {
      ASSERT_TRUE(reader.enter_array());
      while (reader.next_element()) {
        if (reader.peek() == JsonReader::Kind::number) {
          numbers.push_back(*reader.read_int());
        } else if (reader.enter_object()) {
          std::string_view inner;
          while (reader.next_key(inner)) {
            std::string_view value;
            ASSERT_TRUE(reader.read_string(value));
            b = value;
          }
        }
      }
    } else if (key == "e") {
      std::string_view value;
      ASSERT_TRUE(reader.read_string(value));
      e = value;
    } else {
      reader.skip();
    }
  }
  EXPECT_TRUE(reader.finish());
  EXPECT_EQ(numbers, (std::vector<std::int64_t>{1, -25}));
  EXPECT_EQ(b, "x");
  EXPECT_EQ(e, "y");
}

TEST(JsonReader, WrongTypeIsSkippedNotFatal) {
  JsonReader reader(R"({"a": {"deep": [1, 2]}, "b": "text"})");
  ASSERT_TRUE(reader.enter_object());
  std::string_view key;
  ASSERT_TRUE(reader.next_key(key));
  std::string_view value;
  EXPECT_FALSE(reader.read_string(value)); // an object: skipped whole
  ASSERT_TRUE(reader.next_key(key));
  EXPECT_EQ(key, "b");
  EXPECT_FALSE(reader.read_int());
  EXPECT_FALSE(reader.next_key(key));
  EXPECT_TRUE(reader.finish());
}

TEST(JsonReader, DecodesEscapes) {
  EXPECT_EQ(string_value(R"("plain")"), "plain");
  EXPECT_EQ(string_value(R"("a\"b\\c\/d\n\r\t\b\f")"), "a\"b\\c/d\n\r\t\b\f");
  EXPECT_EQ(string_value(R"("caf\u00e9 \u2713")"), "caf\xC3\xA9 \xE2\x9C\x93");
  EXPECT_EQ(string_value(R"("\ud83d\ude00")"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(string_value(R"("\ud83dx")"), "\xEF\xBF\xBDx");
  EXPECT_EQ(string_value(R"("\ude00\ud83d\u0041")"), "\xEF\xBF\xBD\xEF\xBF\xBD"
                                                     "A");
  EXPECT_EQ(string_value("\"raw \xC3\xA9 bytes\""), "raw \xC3\xA9 bytes");
}

TEST(JsonReader, RejectsMalformedText) {
  for (const char* bad : {"",        " ",          "{",
                          "}",       "{\"a\"}",    "{\"a\":}",
                          "{,}",     "{\"a\":1,}", "{\"a\":1 \"b\":2}",
                          "[1,]",    "[,1]",       "[1 2]",
                          "01",      "1.",         "-",
                          ".5",      "1e",         "+1",
                          "tru",     "nul",        "nullx",
                          "\"abc",   "\"a\nb\"",   "{} {}",
                          "\"\\x\"", "\"\\u12\"",  "{\"a\":1]",
                          "[1}",     "'a'",        "{a:1}"}) {
    EXPECT_FALSE(valid(bad)) << bad;
    EXPECT_FALSE(nlohmann::json::accept(bad)) << "the test case itself: " << bad;
  }
  EXPECT_FALSE(valid(std::string(65, '[') + std::string(65, ']'))) << "too deep";
  EXPECT_TRUE(valid(std::string(64, '[') + std::string(64, ']')));
}

TEST(JsonReader, AcceptsWhatJsonAllows) {
  for (const char* good : {"0", "-0", "1.5e+3", "2E-2", "true", "null", "\"\"", "[]", "{}",
                           " [ 1 , { \"a\" : [ ] } ] ", "{\"\":0}", "[\"\\u0000\"]"}) {
    EXPECT_TRUE(valid(good)) << good;
  }
}

TEST(JsonReader, ANumberNoDoubleHoldsFails) {
  for (const std::string& big :
       {std::string("1e999"), std::string("-1e999"), std::string(400, '9')}) {
    JsonReader reader(big);
    EXPECT_FALSE(reader.read_int().has_value()) << big;
    EXPECT_FALSE(reader.finish()) << big;
  }
  JsonReader tiny("1e-999");
  (void)tiny.read_int();
  EXPECT_TRUE(tiny.finish()) << "an underflow is a valid number, unlike an overflow";
}

TEST(JsonReader, ErrorOffsetPointsAtTheProblem) {
  JsonReader reader(R"({"a": 1, "b": ?})");
  reader.skip();
  EXPECT_FALSE(reader.finish());
  EXPECT_EQ(reader.error_offset(), 14u);
}

// Mutated chunks of the documented streams: wherever nlohmann accepts or rejects, so does the
// reader. They differ on purpose only where JSON's grammar is not the question: invalid UTF-8
// (the fixtures are ASCII), lone surrogates and numbers beyond double's range.
TEST(JsonReader, AgreesWithNlohmannOnMutatedChunks) {
  std::vector<std::string> chunks;
  http::SseDecoder decoder([&](const http::SseEvent& e) { chunks.push_back(e.data); });
  decoder.feed(ralph::testing::k_openai_stream);
  decoder.feed(ralph::testing::k_anthropic_stream);
  std::mt19937 rng(7);
  const std::string alphabet = "{}[],:\"\\ 0123456789.-+eEtrufalsn";
  int disagreements = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string text = chunks[rng() % chunks.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < edits && !text.empty(); ++i) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
      case 0:
        text.erase(at, 1);
        break;
      case 1:
        text.insert(at, 1, alphabet[rng() % alphabet.size()]);
        break;
      default:
        text[at] = alphabet[rng() % alphabet.size()];
        break;
      }
    }
    if (text.find("\\u") != std::string::npos) {
      continue; // lone surrogates: nlohmann rejects, the reader replaces
    }
    bool accepted = false;
    try {
      const auto parsed = nlohmann::json::parse(text);
      accepted = !parsed.is_discarded();
    } catch (const nlohmann::json::out_of_range&) {
      continue; // a number beyond double's range: grammatical JSON that nlohmann refuses
    } catch (const nlohmann::json::parse_error&) {
    }
    if (valid(text) != accepted) {
      ADD_FAILURE() << text;
      if (++disagreements > 5) {
        return;
      }
    }
  }
}

} // namespace
} // namespace ralph::llm
