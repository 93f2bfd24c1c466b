#include "llm/json_writer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace ralph::llm {
namespace {

std::string as_json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

TEST(JsonWriter, EscapesWhatJsonRequires) {
  EXPECT_EQ(as_json_string("plain"), "\"plain\"");
  EXPECT_EQ(as_json_string("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(as_json_string("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(as_json_string(std::string("\x01\x1f\0", 3)), R"("\u0001\u001f\u0000")");
  EXPECT_EQ(as_json_string("/ and \x7f stay"), "\"/ and \x7f stay\"");
}

TEST(JsonWriter, KeepsValidUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(as_json_string("é ✓ \xF0\x9F\x98\x80"), "\"é ✓ \xF0\x9F\x98\x80\"");
  EXPECT_EQ(as_json_string("\xC3"), "\"\xEF\xBF\xBD\"");                 // truncated sequence
  EXPECT_EQ(as_json_string("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\""); // overlong
  EXPECT_EQ(as_json_string("\xED\xA0\x80"),
            "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""); // surrogate
  EXPECT_EQ(as_json_string("\xF4\x90\x80\x80x"),
            "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDx\""); // above U+10FFFF
}

TEST(JsonWriter, OutputAlwaysParses) {
  std::string all;
  for (int c = 0; c < 256; ++c) {
    all.push_back(static_cast<char>(c));
  }
  const auto parsed = nlohmann::json::parse(as_json_string(all), nullptr, false);
  ASSERT_TRUE(parsed.is_string());
}

TEST(JsonWriter, ObjectOrEmpty) {
  std::string out;
  append_json_object_or_empty(out, R"( {"a": 1} )");
  append_json_object_or_empty(out, "[1]");
  append_json_object_or_empty(out, "{\"a\": ");
  append_json_object_or_empty(out, "");
  EXPECT_EQ(out, R"( {"a": 1} {}{}{})");
}

TEST(JsonWriter, ObjectsBeyondParseJsonsLimitsAreEmpty) {
  // What Anthropic would be sent back as the input of a call the model made 70,000 deep.
  std::string out;
  append_json_object_or_empty(out, "{\"a\": " + std::string(70'000, '[') +
                                       std::string(70'000, ']') + "}");
  append_json_object_or_empty(out, R"({"a": 1e999})");
  append_json_object_or_empty(out,
                              "{\"a\": " + std::string(500, '[') + std::string(500, ']') + "}");
  EXPECT_EQ(out, "{}{}{\"a\": " + std::string(500, '[') + std::string(500, ']') + "}");
}

} // namespace
} // namespace ralph::llm
