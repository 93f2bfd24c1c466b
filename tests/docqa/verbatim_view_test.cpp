#include "docqa/text_folding.h"
#include "docqa/verbatim_view.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

namespace ralph::docqa {
namespace {

// Text several checkpoint intervals long, with everything folding treats specially: whitespace
// runs (some across checkpoints), multi-byte code points, dropped ones, expansions, invalid
// bytes.
std::string random_text(std::mt19937& random, std::size_t pieces) {
  const std::vector<std::string> alphabet = {
      "a",      "b",      "Q",      " ",        "   ",    "\n\t",   "\u00A0", "\u2003",
      "\u2019", "\u2014", "\u2026", "\uFB01",   "\uFF21", "\u200B", "\u00AD", "\u00DF",
      "\u0130", "\u00C9", "\xFF",   "\xE2\x80", "word ",  "\u4E2D"};
  std::string text;
  for (std::size_t i = 0; i < pieces; ++i) {
    text += alphabet[random() % alphabet.size()];
  }
  return text;
}

// For each folded byte, the document span of the code point that produced it, by folding the
// whole text one step at a time.
std::vector<Span> producers(std::string_view text, MatchLevel level) {
  std::vector<Span> producer;
  std::array<char, k_max_fold_bytes> out{};
  bool in_space = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const FoldStep step = fold_step(text, pos, level, in_space, out.data());
    for (std::size_t i = 0; i < step.written; ++i) {
      producer.push_back({pos, pos + step.consumed});
    }
    pos += step.consumed;
  }
  return producer;
}

constexpr std::array k_levels = {MatchLevel::whitespace, MatchLevel::typographic,
                                 MatchLevel::casefold};

TEST(VerbatimView, TextIsTheFoldOfTheWholeDocument) {
  std::mt19937 random(11);
  for (int round = 0; round < 30; ++round) {
    const std::string text = random_text(random, 50 + random() % 1500);
    for (const MatchLevel level : k_levels) {
      const VerbatimView view(text, level);
      EXPECT_EQ(view.text(), fold_text(text, level)) << to_string(level);
      EXPECT_EQ(view.level(), level);
      EXPECT_GE(view.memory_bytes(), view.text().size());
    }
  }
}

// Plain ASCII goes eight bytes at a time; every byte that interrupts that, at every offset in a
// word, must come out as the code-point path folds it.
TEST(VerbatimView, WordAtATimeAgreesWithFolding) {
  const std::string alphabet = "aaaaaaaaaaZZZZzM@[`{      \t\n\x01\x7F";
  std::mt19937 random(14);
  for (int round = 0; round < 50; ++round) {
    std::string text;
    const std::size_t size = random() % 2000;
    for (std::size_t i = 0; i < size; ++i) {
      text += random() % 50 == 0 ? std::string("\u00C9")
                                 : std::string(1, alphabet[random() % alphabet.size()]);
    }
    for (const MatchLevel level : k_levels) {
      EXPECT_EQ(VerbatimView(text, level).text(), fold_text(text, level)) << to_string(level);
    }
  }
}

TEST(VerbatimView, EmptyDocument) {
  const VerbatimView view("", MatchLevel::casefold);
  EXPECT_TRUE(view.text().empty());
  EXPECT_TRUE(view.source_spans({}, 1).empty());
}

TEST(VerbatimView, MapsEveryFoldedByteBackAcrossCheckpoints) {
  std::mt19937 random(12);
  for (int round = 0; round < 10; ++round) {
    const std::string text = random_text(random, 2000);
    ASSERT_GT(text.size(), 8 * k_checkpoint_interval);
    for (const MatchLevel level : k_levels) {
      const VerbatimView view(text, level);
      const std::vector<Span> producer = producers(text, level);
      ASSERT_EQ(producer.size(), view.text().size());
      // All offsets in one call (the sweeps) and each on its own (a fresh seek every time).
      std::vector<std::size_t> starts(producer.size());
      for (std::size_t i = 0; i < starts.size(); ++i) {
        starts[i] = i;
      }
      const std::vector<Span> spans = view.source_spans(starts, 1);
      for (std::size_t i = 0; i < starts.size(); ++i) {
        ASSERT_EQ(spans[i].begin, producer[i].begin) << to_string(level) << " at " << i;
        ASSERT_EQ(spans[i].end, producer[i].end) << to_string(level) << " at " << i;
        const std::size_t one[] = {i};
        const Span alone = view.source_spans(one, 1).front();
        ASSERT_EQ(alone.begin, producer[i].begin);
        ASSERT_EQ(alone.end, producer[i].end);
      }
    }
  }
}

TEST(VerbatimView, MapsRangesFromFirstToLastProducer) {
  std::mt19937 random(13);
  const std::string text = random_text(random, 3000);
  for (const MatchLevel level : k_levels) {
    const VerbatimView view(text, level);
    const std::vector<Span> producer = producers(text, level);
    for (const std::size_t length : {2U, 7U, 300U, 1000U}) {
      std::vector<std::size_t> starts;
      for (std::size_t start = 0; start + length <= producer.size(); start += 1 + random() % 40) {
        starts.push_back(start);
      }
      const std::vector<Span> spans = view.source_spans(starts, length);
      for (std::size_t i = 0; i < starts.size(); ++i) {
        ASSERT_EQ(spans[i].begin, producer[starts[i]].begin);
        ASSERT_EQ(spans[i].end, producer[starts[i] + length - 1].end);
      }
    }
  }
}

} // namespace
} // namespace ralph::docqa
