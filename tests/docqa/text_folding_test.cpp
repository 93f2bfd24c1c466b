#include "docqa/text_folding.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ralph::docqa {
namespace {

using Cases = std::vector<std::pair<std::string, std::string>>;

void expect_folds(MatchLevel level, const Cases& cases) {
  for (const auto& [text, folded] : cases) {
    EXPECT_EQ(fold_text(text, level), folded) << to_string(level) << ": " << text;
  }
}

TEST(TextFolding, ExactLeavesTextAlone) {
  const std::string text = "A  \u2019b\u00A0\xFF";
  EXPECT_EQ(fold_text(text, MatchLevel::exact), text);
  EXPECT_EQ(fold_quote(" x ", MatchLevel::exact), " x ");
}

TEST(TextFolding, WhitespaceRunsBecomeOneSpace) {
  expect_folds(MatchLevel::whitespace,
               {
                   {"a \t\r\n\v\fb", "a b"},
                   {"a\u00A0b", "a b"},                   // no-break space
                   {"a\u2009\u200A b", "a b"},            // thin and hair space
                   {"a\u3000b\u0085c\u2028d", "a b c d"}, // ideographic space, NEL, line separator
                   {"  a  ", " a "},
                   {"\u2019A\u2014\u200B", "\u2019A\u2014\u200B"}, // nothing else changes
               });
}

TEST(TextFolding, TypographicFormsBecomePlain) {
  expect_folds(
      MatchLevel::typographic,
      {
          {"\u2018a\u2019 \u201Ab\u201B `c\u00B4 \u2032", "'a' 'b' 'c' '"},
          {"\u201Ca\u201D \u201Eb\u201F \u00ABc\u00BB \u2033", "\"a\" \"b\" \"c\" \""},
          {"\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-------"},
          {"wait\u2026", "wait..."},
          {"\uFB00 \uFB01 \uFB02 \uFB03 \uFB04", "ff fi fl ffi ffl"},
          {"\uFF21\uFF42\uFF11\uFF01\uFF5E", "Ab1!~"},
          {"so\u00ADft zero\u200Bwidth\u200C\u200D\uFEFF", "soft zerowidth"},
          {"x\u00B2 H\u2082O \u00BD \u2153 Acme\u2122 \u2116 5", "x2 H2O 1/2 1/3 AcmeTM No 5"},
          {"\u00B5s \u017Fun \u0132", "\u03BCs sun IJ"},
          {"A\u2019s CAPS", "A's CAPS"}, // case stays
      });
}

TEST(TextFolding, DroppedCharactersDoNotBreakAWhitespaceRun) {
  EXPECT_EQ(fold_text("a \u200B b", MatchLevel::typographic), "a b");
  EXPECT_EQ(fold_text("a \u200B b", MatchLevel::whitespace), "a \u200B b");
  EXPECT_EQ(fold_text("a\u00ADb", MatchLevel::typographic), "ab");
}

TEST(TextFolding, CasefoldLowersLatinGreekAndCyrillic) {
  expect_folds(
      MatchLevel::casefold,
      {
          {"TERMINATION Clause", "termination clause"},
          {"\u00C9T\u00C9 \u00D8 \u00DE \u00D7", "\u00E9t\u00E9 \u00F8 \u00FE \u00D7"},
          {"STRA\u00DFE STRA\u1E9EE", "strasse strasse"},
          {"\u0100\u0139\u014A\u0178\u0179\u0131", "\u0101\u013A\u014B\u00FF\u017A\u0131"},
          {"\u0130", "i\u0307"},
          {"\u1E9C\u1E00\u1EA0", "\u1E9C\u1E01\u1EA1"},
          {"\u0391\u0392\u03A3\u0386\u038F \u03C2", "\u03B1\u03B2\u03C3\u03AC\u03CE \u03C3"},
          {"\u0416\u0401\u0460\u04C0\u04C1\u04D0", "\u0436\u0451\u0461\u04CF\u04C2\u04D1"},
          {"\uFF21\u2122\u2116", "atmno"}, // typographic output folds too
          {"\u2019", "'"},
      });
}

TEST(TextFolding, InvalidBytesStayButStrayContinuationBytesAreMarked) {
  const std::string text = "a\xFF  \xC3 \xE2\x80 b\x80";
  EXPECT_EQ(fold_text(text, MatchLevel::exact), text);
  // 0xFF before a stray continuation byte: no dropped character can join it to a lead byte.
  const std::string folded = "a\xFF \xC3 \xE2\xFF\x80 b\xFF\x80";
  EXPECT_EQ(fold_text(text, MatchLevel::whitespace), folded);
  EXPECT_EQ(fold_text(text, MatchLevel::casefold), folded);
  EXPECT_EQ(fold_text("\xC3\u00AD\x89", MatchLevel::typographic), "\xC3\xFF\x89");
  EXPECT_EQ(fold_text(folded, MatchLevel::casefold), folded);
}

TEST(TextFolding, QuotesLoseTheirEdgeSpaces) {
  EXPECT_EQ(fold_quote("\n  The\u00A0tenant \t", MatchLevel::whitespace), "The tenant");
  EXPECT_EQ(fold_quote("\u200B x \u200B", MatchLevel::typographic), "x");
  EXPECT_EQ(fold_quote(" \u200B ", MatchLevel::typographic), "");
  EXPECT_EQ(fold_quote(" \u200B ", MatchLevel::whitespace), "\u200B");
}

// Folding what is already folded changes nothing, at the same level or a looser one. The
// index relies on it: a quote found at one level is found at every looser one.
TEST(TextFolding, FoldingTwiceChangesNothing) {
  const std::vector<std::string> pieces = {
      "a",      "Z",      " ",      "\t\n",   "\u00A0", "\u2019", "\u201C", "\u2014", "`",
      "\u00B4", "\u2026", "\uFB03", "\uFF21", "\uFF40", "\u00AD", "\u200B", "\u00BD", "\u2122",
      "\u00DF", "\u0130", "\u0178", "\u03A3", "\u03C2", "\u0416", "\u1E9E", "\xFF",   "\xC3",
      "\u00B5", "\u017F", "\u0132", "\u2152", "\u2116", "\uFFE0", "\u1EA0"};
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::string text;
    for (int i = 0; i < 30; ++i) {
      text += pieces[random() % pieces.size()];
    }
    for (int strict = 1; strict <= 3; ++strict) {
      for (int loose = strict; loose <= 3; ++loose) {
        const auto strict_level = static_cast<MatchLevel>(strict);
        const auto loose_level = static_cast<MatchLevel>(loose);
        EXPECT_EQ(fold_text(fold_text(text, strict_level), loose_level),
                  fold_text(text, loose_level))
            << text;
      }
    }
  }
}

TEST(TextFolding, CodePointBoundaries) {
  const std::string text = "a\u20ACb\xFF\x80"; // a, 3-byte euro, b, two invalid bytes
  EXPECT_EQ(code_point_start(text, 0), 0U);
  EXPECT_EQ(code_point_start(text, 1), 1U);
  EXPECT_EQ(code_point_start(text, 2), 1U);
  EXPECT_EQ(code_point_start(text, 3), 1U);
  EXPECT_EQ(code_point_start(text, 4), 4U);
  EXPECT_EQ(code_point_start(text, 6), 6U); // a stray continuation byte stands alone
  EXPECT_EQ(code_point_start(text, 7), 7U);
  EXPECT_EQ(code_point_end(text, 0), 0U);
  EXPECT_EQ(code_point_end(text, 1), 1U);
  EXPECT_EQ(code_point_end(text, 2), 4U);
  EXPECT_EQ(code_point_end(text, 3), 4U);
  EXPECT_EQ(code_point_end(text, 4), 4U);
  EXPECT_EQ(code_point_end(text, 7), 7U);
}

} // namespace
} // namespace ralph::docqa
