#include "docqa/text_folding.h"
#include "docqa/verbatim_view.h"

#include "ralph/docqa/verbatim.h"

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace ralph::docqa {
namespace {

std::vector<std::string> texts(std::string_view document, const QuoteMatch& match) {
  std::vector<std::string> out;
  out.reserve(match.occurrences.size());
  for (const Span& span : match.occurrences) {
    out.emplace_back(document.substr(span.begin, span.end - span.begin));
  }
  return out;
}

// The quote is found at `level` and not at any stricter one; returns what it matched.
std::vector<std::string> found_at(std::string_view document, std::string_view quote,
                                  MatchLevel level) {
  VerbatimIndex index(document);
  const QuoteMatch match = index.find(quote, MatchLevel::casefold);
  EXPECT_EQ(match.level, level) << quote;
  if (level != MatchLevel::exact) {
    const auto stricter = static_cast<MatchLevel>(static_cast<int>(level) - 1);
    EXPECT_FALSE(index.find(quote, stricter).level) << quote;
  }
  return texts(document, match);
}

using Texts = std::vector<std::string>;

TEST(VerbatimIndex, ExactMatchReportsTheBytesMatched) {
  const std::string document = "The tenant's deposit is returned.";
  EXPECT_EQ(found_at(document, "tenant's deposit", MatchLevel::exact), Texts{"tenant's deposit"});
}

TEST(VerbatimIndex, LineBreaksInsideAQuoteMatchAtWhitespace) {
  const std::string document = "This lease shall terminate  on the\r\n  date of sale.";
  EXPECT_EQ(found_at(document, "shall\nterminate on\tthe date", MatchLevel::whitespace),
            Texts{"shall terminate  on the\r\n  date"});
}

TEST(VerbatimIndex, NoBreakSpaceMatchesAtWhitespace) {
  const std::string document = "within 30\u00A0days of notice";
  EXPECT_EQ(found_at(document, "30 days", MatchLevel::whitespace), Texts{"30\u00A0days"});
  EXPECT_EQ(found_at(document, "  within 30 days ", MatchLevel::whitespace),
            Texts{"within 30\u00A0days"});
}

TEST(VerbatimIndex, CurlyApostropheMatchesAtTypographic) {
  const std::string document = "The tenant\u2019s deposit";
  EXPECT_EQ(found_at(document, "The tenant's deposit", MatchLevel::typographic), Texts{document});
  VerbatimIndex index(document);
  EXPECT_FALSE(index.find("The tenant's deposit", MatchLevel::whitespace).level);
}

TEST(VerbatimIndex, DashesMatchAtTypographic) {
  const std::string document = "from 2019\u20142020 and 2021\u20132022";
  EXPECT_EQ(found_at(document, "2019-2020", MatchLevel::typographic), Texts{"2019\u20142020"});
  VerbatimIndex index(document);
  EXPECT_FALSE(index.find("2021 - 2022", MatchLevel::casefold).level);
}

TEST(VerbatimIndex, FullWidthAndLigaturesMatchAtTypographic) {
  const std::string document = "\uFF21\uFF22\uFF23 Corp sent a \uFB01nal notice";
  EXPECT_EQ(found_at(document, "ABC Corp", MatchLevel::typographic),
            Texts{"\uFF21\uFF22\uFF23 Corp"});
  EXPECT_EQ(found_at(document, "final notice", MatchLevel::typographic), Texts{"\uFB01nal notice"});
  // A match inside the fold of one code point takes all of it.
  EXPECT_EQ(found_at(document, "inal", MatchLevel::typographic), Texts{"\uFB01nal"});
}

TEST(VerbatimIndex, UpperCaseMatchesAtCasefold) {
  const std::string document = "12. TERMINATION OF THE \u00C9TAT";
  EXPECT_EQ(found_at(document, "Termination of the \u00E9tat", MatchLevel::casefold),
            Texts{"TERMINATION OF THE \u00C9TAT"});
}

TEST(VerbatimIndex, LevelsCombine) {
  const std::string document = "THE\u00A0TENANT\u2019S\n DEPOSIT";
  EXPECT_EQ(found_at(document, "the tenant's deposit", MatchLevel::casefold), Texts{document});
}

TEST(VerbatimIndex, LoosestLevelIsALimit) {
  const std::string document = "TERMINATION of the tenant\u2019s lease";
  VerbatimIndex index(document);
  EXPECT_FALSE(index.find("termination", MatchLevel::typographic).level);
  EXPECT_FALSE(index.find("tenant's", MatchLevel::whitespace).level);
  EXPECT_FALSE(index.find("tenant's", MatchLevel::exact).level);
  EXPECT_EQ(index.find("termination", MatchLevel::casefold).level, MatchLevel::casefold);
  EXPECT_EQ(index.find("tenant's", MatchLevel::typographic).level, MatchLevel::typographic);
}

TEST(VerbatimIndex, ReportsEveryOccurrenceOverlappingOnesToo) {
  VerbatimIndex exact("aaaa");
  const QuoteMatch match = exact.find("aa", MatchLevel::exact);
  ASSERT_EQ(match.occurrences.size(), 3U);
  EXPECT_EQ(match.occurrences[0].begin, 0U);
  EXPECT_EQ(match.occurrences[1].begin, 1U);
  EXPECT_EQ(match.occurrences[2].begin, 2U);
  EXPECT_EQ(match.occurrences[2].end, 4U);

  const std::string document = "a  a\ta\n\na";
  EXPECT_EQ(found_at(document, "a a a", MatchLevel::whitespace), (Texts{"a  a\ta", "a\ta\n\na"}));
  VerbatimIndex index(document);
  const QuoteMatch spaced = index.find("a a a", MatchLevel::whitespace);
  ASSERT_EQ(spaced.occurrences.size(), 2U);
  EXPECT_EQ(spaced.occurrences[0].begin, 0U);
  EXPECT_EQ(spaced.occurrences[1].begin, 3U);
  EXPECT_EQ(spaced.occurrences[1].end, document.size());
}

TEST(VerbatimIndex, OffsetsCoverWholeCodePointsAndNothingAround) {
  // Multi-byte characters on both edges, a collapsed run inside, dropped and space characters
  // just outside.
  const std::string document = "x \u200B\u00C9t\u00E9 \u2003 \u2014 \u00FCber\u00AD y";
  EXPECT_EQ(found_at(document, "\u00E9t\u00E9 - \u00FCBER", MatchLevel::casefold),
            Texts{"\u00C9t\u00E9 \u2003 \u2014 \u00FCber"});
}

TEST(VerbatimIndex, MatchesAtTheVeryStartAndEnd) {
  const std::string document = "\u201CStart here\u201D and end there\u2026";
  EXPECT_EQ(found_at(document, "\"Start", MatchLevel::typographic), Texts{"\u201CStart"});
  EXPECT_EQ(found_at(document, "end there...", MatchLevel::typographic), Texts{"end there\u2026"});
  EXPECT_EQ(found_at(document, "there.", MatchLevel::typographic), Texts{"there\u2026"});
  EXPECT_EQ(found_at(" a b ", "A B", MatchLevel::casefold), Texts{"a b"});
}

TEST(VerbatimIndex, CountsEachMatchInsideOneCharactersFold) {
  // Three full stops in one ellipsis: three occurrences with the same span.
  const std::string document = "wait\u2026";
  VerbatimIndex index(document);
  const QuoteMatch match = index.find(".", MatchLevel::casefold);
  ASSERT_EQ(match.level, MatchLevel::typographic);
  EXPECT_EQ(texts(document, match), (Texts{"\u2026", "\u2026", "\u2026"}));
}

TEST(VerbatimIndex, CloseOccurrencesAtAStricterLevelAreReportedOnce) {
  const std::string document = "a\u00A0a\u00A0a\u00A0a \u200Ba";
  EXPECT_EQ(found_at(document, "a a", MatchLevel::whitespace),
            (Texts{"a\u00A0a", "a\u00A0a", "a\u00A0a"}));
  EXPECT_EQ(found_at(document, "A A A A A", MatchLevel::casefold),
            (Texts{"a\u00A0a\u00A0a\u00A0a \u200Ba"}));
}

TEST(VerbatimIndex, CharactersDroppedAtTheEdgesCountAtStricterLevels) {
  // At whitespace the zero-width space is a character like any other, so the quote that has it
  // matches there, with it; the one without it needs typographic.
  const std::string document = "x \u200Bfoo\u00AD y";
  EXPECT_EQ(found_at(document, "\u200Bfoo\u00AD", MatchLevel::exact), Texts{"\u200Bfoo\u00AD"});
  EXPECT_EQ(found_at(document, " \u200Bfoo\u00AD  y", MatchLevel::whitespace),
            Texts{"\u200Bfoo\u00AD y"});
  EXPECT_EQ(found_at(document, "x foo y", MatchLevel::typographic), Texts{document});
  EXPECT_EQ(found_at(document, "X foo", MatchLevel::casefold), Texts{"x \u200Bfoo"});
}

TEST(VerbatimIndex, EmptyOrInvisibleQuotesAreNeverFound) {
  VerbatimIndex index("some text  with\u200B spaces");
  for (const std::string quote : {"", " ", "  ", "\n\t", "\u00A0", "\u200B", " \u00AD "}) {
    EXPECT_FALSE(index.find(quote, MatchLevel::casefold).level) << quote;
    EXPECT_FALSE(index.find(quote, MatchLevel::exact).level) << quote;
  }
  VerbatimIndex empty("");
  EXPECT_FALSE(empty.find("a", MatchLevel::casefold).level);
}

TEST(VerbatimIndex, InvalidUtf8IsMatchedBytewise) {
  const std::string document = "ab\xFF\xFE"
                               "cd  \xC3 ef\xE2\x80";
  EXPECT_EQ(found_at(document,
                     "\xFF\xFE"
                     "cd \xC3 EF\xE2\x80",
                     MatchLevel::casefold),
            Texts{"\xFF\xFE"
                  "cd  \xC3 ef\xE2\x80"});
  VerbatimIndex index(document);
  EXPECT_FALSE(index.find("\xC3\xA9", MatchLevel::casefold).level);
  EXPECT_EQ(index.find("\xE2", MatchLevel::casefold).level, MatchLevel::exact);
  // A quote that is not valid UTF-8 never matches part of a character.
  VerbatimIndex cafe("CAF\u00C9 caf\u00E9");
  EXPECT_FALSE(cafe.find("caf\xC3", MatchLevel::casefold).level);
  EXPECT_FALSE(cafe.find("\xA9", MatchLevel::casefold).level);
}

TEST(VerbatimIndex, DroppingACharacterNeverJoinsStrayBytesIntoOne) {
  // A stray lead byte, a soft hyphen, a stray continuation byte: without the hyphen the two
  // bytes would read as "É", which typographic would find and casefold (seeing "é") would not.
  const std::string document = "x \xC3\u00AD\x89 y";
  VerbatimIndex index(document);
  for (const char* quote : {"\u00C9", "\u00E9", "x \u00C9 y"}) {
    EXPECT_FALSE(index.find(quote, MatchLevel::typographic).level) << quote;
    EXPECT_FALSE(index.find(quote, MatchLevel::casefold).level) << quote;
  }
  // The stray bytes still match themselves, at every level.
  EXPECT_EQ(index.find("x \xC3\u00AD\x89 y", MatchLevel::casefold).level, MatchLevel::exact);
  EXPECT_EQ(index.find("X \xC3\u00AD\x89 Y", MatchLevel::casefold).level, MatchLevel::casefold);
}

TEST(VerbatimIndex, WhatAStricterLevelFindsEveryLooserLevelFinds) {
  const std::vector<std::string> pieces = {"a",      "E",      "\u00C9", "\u00E9", "\xC3",
                                           "\x89",   "\xA9",   "\xE2",   "\x80",   "\u00AD",
                                           "\u200B", "\uFEFF", " ",      "\u00A0", "\u2019"};
  std::mt19937 random(7);
  for (int round = 0; round < 300; ++round) {
    std::string document;
    for (std::size_t n = 2 + random() % 30; n > 0; --n) {
      document += pieces[random() % pieces.size()];
    }
    VerbatimIndex index(document);
    for (int q = 0; q < 10; ++q) {
      std::string quote;
      for (std::size_t n = 1 + random() % 4; n > 0; --n) {
        quote += pieces[random() % pieces.size()];
      }
      std::optional<MatchLevel> found;
      for (int loosest = 0; loosest < 4; ++loosest) {
        const auto level = index.find(quote, static_cast<MatchLevel>(loosest)).level;
        if (found) {
          ASSERT_EQ(level, found) << "quote " << quote << " in " << document << " at "
                                  << to_string(static_cast<MatchLevel>(loosest));
        }
        found = level;
      }
    }
  }
}

TEST(VerbatimIndex, MatchesStraddlingCheckpoints) {
  // Filler of varying width pushes the quote across checkpoint boundaries at every phase.
  std::string document;
  std::vector<std::size_t> expected;
  for (std::size_t i = 0; document.size() < 20 * k_checkpoint_interval; ++i) {
    document += std::string(37 + i % 23, 'z') + "\u00A0\u00A0 ";
    expected.push_back(document.size());
    document += "THE   tenant\u2019s\u200B deposit";
  }
  VerbatimIndex index(document);
  const QuoteMatch match = index.find("the tenant's deposit", MatchLevel::casefold);
  ASSERT_EQ(match.level, MatchLevel::casefold);
  ASSERT_EQ(match.occurrences.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(match.occurrences[i].begin, expected[i]);
    EXPECT_EQ(document.substr(match.occurrences[i].begin,
                              match.occurrences[i].end - match.occurrences[i].begin),
              "THE   tenant\u2019s\u200B deposit");
  }
}

TEST(VerbatimIndex, KeepsBuiltLevels) {
  const std::string document = "The Tenant\u2019s deposit";
  VerbatimIndex index(document);
  EXPECT_EQ(index.document(), document);
  EXPECT_EQ(index.memory_bytes(), 0U);
  EXPECT_EQ(index.find("Tenant", MatchLevel::casefold).level, MatchLevel::exact);
  EXPECT_EQ(index.memory_bytes(), 0U); // exact needs no view
  EXPECT_EQ(index.find("tenant's", MatchLevel::casefold).level, MatchLevel::casefold);
  const std::size_t built = index.memory_bytes();
  EXPECT_GT(built, 0U);
  EXPECT_EQ(index.find("tenant's", MatchLevel::casefold).level, MatchLevel::casefold);
  EXPECT_EQ(index.memory_bytes(), built);
  // With the view built, stricter levels (exact too) are told apart around its matches.
  const QuoteMatch exact = index.find(" Tenant’s ", MatchLevel::casefold);
  EXPECT_EQ(exact.level, MatchLevel::exact);
  EXPECT_EQ(texts(document, exact), Texts{" Tenant’s "});
  EXPECT_EQ(index.find("Tenant's", MatchLevel::casefold).level, MatchLevel::typographic);
  EXPECT_EQ(index.memory_bytes(), built);
}

// Random documents over a small alphabet: every occurrence found folds to the folded quote,
// the count is what a naive search over the naively folded document finds, and no stricter
// level finds the quote.
TEST(VerbatimIndex, AgreesWithNaiveFoldingOnRandomDocuments) {
  const std::vector<std::pair<std::string, std::string>> pieces = {
      {"a", "A"},       {"b", "B"},           {"\u00E9", "\u00C9"},
      {" ", "\n"},      {"  ", " \t"},        {"\u2019", "'"},
      {"\u2014", "-"},  {"\u00A0", " "},      {"\u200B", ""},
      {"\xFF", "\xFF"}, {"\xC3", "\xC3"},     {"ss", "SS"},
      {"\uFF41", "a"},  {"\u03A3", "\u03C3"}, {"\u2026", "..."},
      {"\uFB01", "fi"}, {"\u00AD", ""},       {"i", "I"},
      {".", "."}};
  // Occurrences that do not start or end inside a character (the alphabet's lone "\xC3" must
  // not match the start of "é").
  const auto count = [](std::string_view haystack, std::string_view needle) {
    std::size_t n = 0;
    for (std::size_t at = haystack.find(needle); at != std::string_view::npos;
         at = haystack.find(needle, at + 1)) {
      const std::size_t end = at + needle.size();
      n += code_point_start(haystack, at) == at && code_point_end(haystack, end) == end ? 1 : 0;
    }
    return n;
  };
  std::mt19937 random(2024);
  std::size_t found_levels[4] = {};
  std::size_t not_found = 0;
  for (int round = 0; round < 150; ++round) {
    std::vector<std::size_t> tokens(20 + random() % 400);
    std::string document;
    for (std::size_t& token : tokens) {
      token = random() % pieces.size();
      document += random() % 4 == 0 ? pieces[token].second : pieces[token].first;
    }
    const std::array<std::string, 4> folded_document = {
        document, fold_text(document, MatchLevel::whitespace),
        fold_text(document, MatchLevel::typographic), fold_text(document, MatchLevel::casefold)};
    VerbatimIndex index(document);
    for (int q = 0; q < 20; ++q) {
      // A stretch of the document's tokens, each written either way.
      const std::size_t length = 1 + random() % 6;
      const std::size_t first = random() % tokens.size();
      std::string quote;
      for (std::size_t i = first; i < std::min(tokens.size(), first + length); ++i) {
        quote += random() % 3 == 0 ? pieces[tokens[i]].second : pieces[tokens[i]].first;
      }
      const auto loosest = static_cast<MatchLevel>(random() % 4);
      const QuoteMatch match = index.find(quote, loosest);
      const bool visible = !fold_quote(quote, MatchLevel::casefold).empty();
      const int reported = match.level ? static_cast<int>(*match.level) : -1;
      for (int level = 0; level <= static_cast<int>(loosest); ++level) {
        const auto at = static_cast<MatchLevel>(level);
        const std::size_t naive =
            visible ? count(folded_document[level], fold_quote(quote, at)) : 0;
        if (level < reported || reported < 0) {
          ASSERT_EQ(naive, 0U) << to_string(at) << " quote " << quote << " in " << document;
        } else if (level == reported) {
          ASSERT_EQ(match.occurrences.size(), naive) << quote << " in " << document;
        }
      }
      if (reported < 0) {
        ++not_found;
        continue;
      }
      ++found_levels[reported];
      for (const Span& span : match.occurrences) {
        const std::string_view text =
            std::string_view(document).substr(span.begin, span.end - span.begin);
        const std::string folded_text = fold_quote(text, *match.level);
        const std::string folded_quote = fold_quote(quote, *match.level);
        // A match may start or end inside the fold of "…" or "ﬁ", and then covers all of it.
        const auto expands = [](std::string_view piece) {
          return piece == "\u2026" || piece == "\uFB01";
        };
        if (text.size() >= 3 &&
            (expands(text.substr(0, 3)) || expands(text.substr(text.size() - 3)))) {
          ASSERT_NE(folded_text.find(folded_quote), std::string::npos)
              << quote << " in " << document;
        } else {
          ASSERT_EQ(folded_text, folded_quote) << quote << " in " << document;
        }
      }
    }
  }
  // The generator reaches every outcome.
  for (const std::size_t n : found_levels) {
    EXPECT_GT(n, 20U);
  }
  EXPECT_GT(not_found, 20U);
}

TEST(Locate, CountsLinesAndCodePoints) {
  const std::string document = "ab\n\u00E9\u20AC x\n\nz\xFF!";
  EXPECT_EQ(locate(document, 0).line, 1U);
  EXPECT_EQ(locate(document, 0).column, 1U);
  EXPECT_EQ(locate(document, 2).column, 3U); // the newline itself ends line 1
  const std::size_t x = document.find('x');
  EXPECT_EQ(locate(document, x).line, 2U);
  EXPECT_EQ(locate(document, x).column, 4U);     // é and € count one each
  EXPECT_EQ(locate(document, x - 2).column, 2U); // inside the euro sign: its column
  const std::size_t z = document.find('z');
  EXPECT_EQ(locate(document, z).line, 4U);
  EXPECT_EQ(locate(document, z).column, 1U);
  EXPECT_EQ(locate(document, z + 2).column, 3U); // an invalid byte counts as one
  EXPECT_EQ(locate(document, document.size()).column, 4U);
  EXPECT_EQ(locate(document, document.size() + 10).line, 4U);
  EXPECT_EQ(locate(document, document.size() + 10).column, 4U);
}

std::vector<std::pair<std::size_t, std::size_t>> pairs(const std::vector<Span>& spans) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  out.reserve(spans.size());
  for (const Span& span : spans) {
    out.emplace_back(span.begin, span.end);
  }
  return out;
}

using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;

TEST(EvidenceWindows, WidensAndKeepsDisjointWindowsApart) {
  const std::string document(100, 'a');
  const std::vector<Span> used = {{50, 52}, {10, 12}};
  EXPECT_EQ(pairs(evidence_windows(used, 5, document)), (Pairs{{5, 17}, {45, 57}}));
}

TEST(EvidenceWindows, MergesOverlappingAndTouchingWindows) {
  const std::string document(100, 'a');
  const std::vector<Span> overlapping = {{10, 20}, {22, 30}};
  EXPECT_EQ(pairs(evidence_windows(overlapping, 5, document)), (Pairs{{5, 35}}));
  const std::vector<Span> touching = {{30, 40}, {10, 20}};
  EXPECT_EQ(pairs(evidence_windows(touching, 5, document)), (Pairs{{5, 45}}));
  const std::vector<Span> apart_by_one = {{10, 20}, {31, 40}};
  EXPECT_EQ(pairs(evidence_windows(apart_by_one, 5, document)), (Pairs{{5, 25}, {26, 45}}));
  const std::vector<Span> nested = {{10, 60}, {20, 30}, {40, 41}};
  EXPECT_EQ(pairs(evidence_windows(nested, 5, document)), (Pairs{{5, 65}}));
}

TEST(EvidenceWindows, ClampsAtBothEnds) {
  const std::string document(100, 'a');
  const std::vector<Span> used = {{2, 4}, {95, 99}};
  EXPECT_EQ(pairs(evidence_windows(used, 10, document)), (Pairs{{0, 14}, {85, 100}}));
  EXPECT_EQ(pairs(evidence_windows(used, k_evidence_radius, document)), (Pairs{{0, 100}}));
  const std::vector<Span> past_the_end = {{90, 200}};
  EXPECT_EQ(pairs(evidence_windows(past_the_end, 0, document)), (Pairs{{90, 100}}));
}

TEST(EvidenceWindows, NeverCutsAUtf8Character) {
  // aaaa € bbbb € cccc: the euro signs are bytes 4-6 and 11-13.
  const std::string document = "aaaa\u20ACbbbb\u20ACcccc";
  const std::vector<Span> used = {{8, 9}};
  // A radius of 3 lands inside both euro signs; the window takes them whole.
  EXPECT_EQ(pairs(evidence_windows(used, 3, document)), (Pairs{{4, 14}}));
  EXPECT_EQ(pairs(evidence_windows(used, 2, document)), (Pairs{{4, 11}}));
  EXPECT_EQ(pairs(evidence_windows(used, 1, document)), (Pairs{{7, 10}}));
}

TEST(EvidenceWindows, NothingUsedNothingShown) {
  EXPECT_TRUE(evidence_windows({}, k_evidence_radius, "text").empty());
}

// A document of words separated by runs of spaces and line breaks, with curly quotes, dashes,
// ligatures, ellipses and capitals: folding shrinks and grows it, so window edges fall anywhere.
std::string mixed_document(std::size_t bytes, unsigned seed) {
  constexpr std::array<std::string_view, 12> k_pieces = {"lease",
                                                         "Tenant",
                                                         "\xE2\x80\x99s",
                                                         "\xEF\xAC\x81nal",
                                                         "\xE2\x80\x94",
                                                         "deposit\xE2\x80\xA6",
                                                         "\xE2\x80\x9Cterm\xE2\x80\x9D",
                                                         "SHALL",
                                                         "\xC3\xA9t\xC3\xA9",
                                                         "on",
                                                         "the",
                                                         "\xE2\x80\x8B"};
  constexpr std::array<std::string_view, 5> k_gaps = {" ", "  ", "\n", " \r\n  ", "\t"};
  std::mt19937 rng(seed);
  std::string out;
  while (out.size() < bytes) {
    out += k_pieces[rng() % k_pieces.size()];
    out += k_gaps[rng() % k_gaps.size()];
  }
  return out;
}

// Quotes cut from the document at every few bytes, written looser than the document writes them
// (folded at `level`: single spaces, straight quotes, lower case), so most are not found byte
// for byte.
std::vector<std::string> loose_quotes(std::string_view document, MatchLevel level) {
  std::vector<std::string> quotes;
  for (std::size_t at = 0; at + 40 < document.size(); at += 197) {
    const std::size_t begin = code_point_start(document, at);
    const std::size_t end = code_point_end(document, at + 40);
    quotes.push_back(fold_quote(document.substr(begin, end - begin), level));
  }
  return quotes;
}

TEST(VerbatimIndex, WindowsFindWhatTheWholeViewFinds) {
  const std::string document = mixed_document(30'000, 7);
  for (const MatchLevel level : {MatchLevel::whitespace, MatchLevel::casefold}) {
    for (const std::size_t window : {std::size_t{700}, std::size_t{4096}}) {
      VerbatimIndex whole(document);
      VerbatimIndex windowed(document, 0, window);
      for (const std::string& quote : loose_quotes(document, level)) {
        const QuoteMatch expected = whole.find(quote, level);
        const QuoteMatch got = windowed.find(quote, level);
        ASSERT_EQ(got.level, expected.level) << quote << " window " << window;
        ASSERT_EQ(texts(document, got), texts(document, expected)) << quote;
        for (std::size_t i = 0; i < got.occurrences.size(); ++i) {
          EXPECT_EQ(got.occurrences[i].begin, expected.occurrences[i].begin) << quote;
        }
      }
    }
  }
}

// A quote found only at a looser level than exact must not make the index fold the whole
// document: past the kept size, what it holds at once stays near one window, not the document.
TEST(VerbatimIndex, MemoryPastTheKeptViewStaysNearOneWindow) {
  const std::string document = mixed_document(8u << 20, 3);
  constexpr std::size_t k_window = 256u << 10;
  VerbatimIndex index(document, 1u << 20, k_window);
  std::string quote;
  for (const std::string& loose :
       loose_quotes(std::string_view(document).substr(5u << 20, 4096), MatchLevel::casefold)) {
    if (document.find(loose) == std::string::npos) {
      quote = loose;
      break;
    }
  }
  ASSERT_FALSE(quote.empty());
  const QuoteMatch match = index.find(quote, MatchLevel::casefold);
  ASSERT_TRUE(match.level);
  EXPECT_NE(*match.level, MatchLevel::exact);
  EXPECT_EQ(index.memory_bytes(), 0u);
  EXPECT_LT(index.peak_memory_bytes(), 2 * k_window);
  EXPECT_GT(index.peak_memory_bytes(), 0u);

  VerbatimIndex kept(document);
  ASSERT_EQ(kept.find(quote, MatchLevel::casefold).occurrences.size(), match.occurrences.size());
  EXPECT_GT(kept.peak_memory_bytes(), document.size()) << "below the kept size, the view is kept";
}

} // namespace
} // namespace ralph::docqa
