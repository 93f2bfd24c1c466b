#include "ralph/core/text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ralph {
namespace {

const std::string k_euro = "\xE2\x82\xAC"; // 3 bytes

TEST(Utf8Prefix, NeverEndsInsideASequence) {
  const std::string text = "ab" + k_euro + "cd";
  EXPECT_EQ(utf8_prefix(text, 2), "ab");
  EXPECT_EQ(utf8_prefix(text, 3), "ab");
  EXPECT_EQ(utf8_prefix(text, 4), "ab");
  EXPECT_EQ(utf8_prefix(text, 5), "ab" + k_euro);
  EXPECT_EQ(utf8_prefix(text, 100), text);
}

TEST(Utf8Suffix, NeverStartsInsideASequence) {
  const std::string text = "ab" + k_euro + "cd";
  EXPECT_EQ(utf8_suffix(text, 2), "cd");
  EXPECT_EQ(utf8_suffix(text, 4), "cd");
  EXPECT_EQ(utf8_suffix(text, 5), k_euro + "cd");
}

TEST(KeepHeadAndTail, LeavesShortTextAlone) {
  EXPECT_EQ(keep_head_and_tail("hello", 5), "hello");
}

TEST(KeepHeadAndTail, KeepsBothEndsAndCountsWhatWasLeftOut) {
  const std::string text = std::string(100, 'a') + std::string(100, 'b');
  const std::string out = keep_head_and_tail(text, 20);
  EXPECT_EQ(out.substr(0, 10), std::string(10, 'a'));
  EXPECT_EQ(out.substr(out.size() - 10), std::string(10, 'b'));
  EXPECT_NE(out.find("[... 180 bytes omitted ...]"), std::string::npos);
}

TEST(ToValidUtf8, KeepsValidTextAndReplacesInvalidBytes) {
  EXPECT_EQ(to_valid_utf8("plain " + k_euro), "plain " + k_euro);
  EXPECT_EQ(to_valid_utf8("a\xFF"
                          "b"),
            "a\xEF\xBF\xBD"
            "b");
  // A truncated sequence, an overlong encoding and a UTF-16 surrogate are all invalid.
  EXPECT_EQ(to_valid_utf8("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(to_valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(to_valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(to_valid_utf8("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
}

TEST(IsValidUtf8, AgreesWithTheRepairAtEveryLengthAndOffset) {
  // ASCII runs longer than the 8-byte fast path, with a bad byte at every position.
  const std::string ascii(37, 'x');
  EXPECT_TRUE(is_valid_utf8(ascii));
  for (std::size_t at = 0; at < ascii.size(); ++at) {
    std::string broken = ascii;
    broken[at] = '\xFF';
    EXPECT_FALSE(is_valid_utf8(broken)) << at;
    EXPECT_TRUE(is_valid_utf8(to_valid_utf8(broken))) << at;
    std::string euro = ascii;
    euro.insert(at, k_euro);
    EXPECT_TRUE(is_valid_utf8(euro)) << at;
    EXPECT_EQ(to_valid_utf8(euro), euro) << at;
  }
}

TEST(SplitLines, ViewsEachLineAndIgnoresAFinalNewline) {
  EXPECT_TRUE(split_lines("").empty());
  EXPECT_EQ(split_lines("a\n\nb\n"), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(split_lines("a\r\nb"), (std::vector<std::string_view>{"a\r", "b"}));
}

TEST(FirstLine, CutsOnACodePointAndMarksWhatWasLeftOut) {
  EXPECT_EQ(first_line("short", 80), "short");
  EXPECT_EQ(first_line("one\ntwo", 80), "one…");
  EXPECT_EQ(first_line("héllo", 2), "h…");
}

TEST(IgnoringCase, ComparesAsciiLettersOnly) {
  EXPECT_TRUE(equals_ignoring_case("BLOCKED:", "blocked:"));
  EXPECT_FALSE(equals_ignoring_case("É", "é"));
  EXPECT_TRUE(starts_with_ignoring_case("Blocked: no key", "BLOCKED:"));
  EXPECT_FALSE(starts_with_ignoring_case("Block", "BLOCKED:"));
  EXPECT_EQ(to_lower_ascii("Content-Type: É"), "content-type: É");
}

TEST(EditDistance, CountsInsertsDeletesReplacementsAndSwaps) {
  EXPECT_EQ(edit_distance("run", "run"), 0u);
  EXPECT_EQ(edit_distance("rn", "run"), 1u);
  EXPECT_EQ(edit_distance("session", "sessions"), 1u);
  EXPECT_EQ(edit_distance("modle", "model"), 1u) << "a swap of neighbours is one edit";
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
}

TEST(ShellQuote, GivesOneWordTheShellReadsBackUnchanged) {
  EXPECT_EQ(shell_quote("plain"), "'plain'");
  EXPECT_EQ(shell_quote("it's $HOME"), R"('it'\''s $HOME')");
  EXPECT_EQ(shell_quote(""), "''");
}

const std::vector<std::string> k_commands{"run", "qa", "task", "demo", "sessions"};
const std::vector<std::string> k_options{
    "--help",        "-h",          "--model", "-m", "--max-steps", "--max-tokens",
    "--time-budget", "--workspace", "-w"};

TEST(ClosestName, OneEditForShortWordsIncludingASwap) {
  EXPECT_EQ(closest_name("rn", k_commands), "run");
  EXPECT_EQ(closest_name("session", k_commands), "sessions");
  EXPECT_EQ(closest_name("lst", {"list", "show", "resume", "export", "rm", "prune"}), "list");
  EXPECT_EQ(closest_name("--modle", k_options), "--model") << "a swap is one edit";
  EXPECT_EQ(closest_name("--max-step", k_options), "--max-steps");
}

TEST(ClosestName, NothingWhenNoNameIsNear) {
  EXPECT_EQ(closest_name("x", k_commands), "") << "one letter is never a typo of anything";
  EXPECT_EQ(closest_name("-x", k_options), "");
  EXPECT_EQ(closest_name("chat", k_commands), "");
  EXPECT_EQ(closest_name("--frobnicate", k_options), "");
  EXPECT_EQ(closest_name("", k_commands), "");
}

TEST(ClosestName, AUniqueBeginningWhenNoEditIsClose) {
  EXPECT_EQ(closest_name("--time", k_options), "--time-budget");
  EXPECT_EQ(closest_name("--max", k_options), "") << "three names begin so";
}

} // namespace
} // namespace ralph
