// The verbatim quote index on a 100 MB text-like document (words, punctuation, curly quotes and
// apostrophes, dashes, line breaks, a few no-break spaces): building each level's folded view,
// and checking the 8 quotes of a QA answer (two exact, two across line breaks, one with a
// straight apostrophe for a curly one, one in the wrong case, two not in the document; loosest
// level casefold) with a fresh index each time (what one QA check costs end to end) and with a
// warm one, and 8 quotes that all match exactly (no folded view needed). Memory: the bytes the
// index allocated (index_MB) and how much resident memory grew over one check (rss_growth_MB).

#include "docqa/verbatim_view.h"

#include "ralph/docqa/verbatim.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace ralph::bench {
namespace {

using docqa::MatchLevel;

constexpr std::size_t k_document_bytes = 100U << 20;

struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  std::size_t below(std::size_t n) { return next() % n; }
};

std::string make_document() {
  static constexpr std::array<std::string_view, 48> k_words = {
      "the",       "tenant",     "landlord", "shall",     "deposit",   "lease",     "notice",
      "of",        "and",        "to",       "in",        "premises",  "rent",      "payment",
      "within",    "days",       "after",    "before",    "any",       "party",     "agreement",
      "term",      "may",        "not",      "be",        "for",       "with",      "written",
      "consent",   "repair",     "property", "damage",    "insurance", "utilities", "period",
      "month",     "year",       "date",     "terminate", "default",   "remedy",    "law",
      "provision", "obligation", "interest", "return",    "condition", "access"};
  static constexpr std::array<std::string_view, 6> k_contracted = {
      "tenant\u2019s", "landlord\u2019s", "party\u2019s", "don\u2019t", "it\u2019s", "year\u2019s"};
  Random random{0x9E3779B97F4A7C15ULL};
  std::string text;
  text.reserve(k_document_bytes + 256);
  std::size_t line = 0;
  bool sentence_start = true;
  while (text.size() < k_document_bytes) {
    const std::size_t roll = random.below(100);
    std::string_view word = roll < 4 ? k_contracted[random.below(k_contracted.size())]
                                     : k_words[random.below(k_words.size())];
    const std::size_t before = text.size();
    if (roll >= 4 && roll < 6) {
      text += "\u201C";
    }
    text += word;
    if (sentence_start || roll == 99) {
      text[before] = static_cast<char>(text[before] - 'a' + 'A');
    }
    sentence_start = false;
    if (roll >= 4 && roll < 6) {
      text += "\u201D";
    }
    const std::size_t punctuation = random.below(40);
    if (punctuation == 0) {
      text += ".";
      sentence_start = true;
    } else if (punctuation == 1) {
      text += ",";
    } else if (punctuation == 2) {
      text += " \u2014";
    }
    line += text.size() - before + 1;
    if (line > 72) {
      text += random.below(8) == 0 ? "\n\n" : "\n";
      line = 0;
    } else {
      text += random.below(200) == 0 ? "\u00A0" : " ";
    }
  }
  return text;
}

const std::string& document() {
  static const std::string text = make_document();
  return text;
}

// About 120 bytes of the document from `fraction` of the way in, from a word start to a word
// end, passing `needle` on the way.
std::string excerpt(double fraction, std::string_view needle) {
  const std::string& text = document();
  std::size_t at = text.find(needle, static_cast<std::size_t>(fraction * text.size()));
  at = text.rfind(' ', at > 60 ? at - 60 : 0) + 1;
  const std::size_t end = text.find(' ', at + 120);
  return text.substr(at, end - at);
}

std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t done = 0;
  for (std::size_t at = text.find(from); at != std::string_view::npos; at = text.find(from, done)) {
    out.append(text.substr(done, at - done)).append(to);
    done = at + from.size();
  }
  return out.append(text.substr(done));
}

struct Quote {
  std::string text;
  std::optional<MatchLevel> level;
};

std::vector<Quote> quotes() {
  std::string upper = excerpt(0.8, "\n");
  std::transform(upper.begin(), upper.end(), upper.begin(), [](char c) {
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
  });
  return {
      {excerpt(0.3, " "), MatchLevel::exact},
      {excerpt(0.6, " "), MatchLevel::exact},
      {replace_all(excerpt(0.2, "\n"), "\n", " "), MatchLevel::whitespace},
      {replace_all(excerpt(0.9, "\n"), "\n", " "), MatchLevel::whitespace},
      {replace_all(replace_all(excerpt(0.5, "\u2019"), "\u2019", "'"), "\n", " "),
       MatchLevel::typographic},
      {upper, MatchLevel::casefold},
      {"The tenant shall repair the moon within seven days of written notice from the landlord",
       std::nullopt},
      {"Lorem ipsum dolor sit amet, consectetur adipiscing elit", std::nullopt},
  };
}

// Resident memory of this process, in bytes.
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0;
  std::size_t resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

bool check_all(docqa::VerbatimIndex& index, const std::vector<Quote>& wanted,
               benchmark::State& state) {
  for (const Quote& quote : wanted) {
    const docqa::QuoteMatch match = index.find(quote.text, MatchLevel::casefold);
    if (match.level != quote.level) {
      state.SkipWithError("a quote matched at an unexpected level");
      return false;
    }
    benchmark::DoNotOptimize(match.occurrences.data());
  }
  return true;
}

void BM_VerbatimView_Build(benchmark::State& state) {
  const std::string& text = document();
  const auto level = static_cast<MatchLevel>(state.range(0));
  std::size_t bytes = 0;
  for (auto _ : state) {
    const docqa::VerbatimView view(text, level);
    bytes = view.memory_bytes();
    benchmark::DoNotOptimize(view.text().data());
  }
  state.SetLabel(ralph::to_string(level));
  state.SetBytesProcessed(static_cast<std::int64_t>(text.size()) * state.iterations());
  state.counters["view_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_VerbatimView_Build)->DenseRange(1, 3)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VerbatimIndex_Check8Cold(benchmark::State& state) {
  const std::string& text = document();
  const std::vector<Quote> wanted = quotes();
  std::size_t index_bytes = 0;
  std::size_t rss_growth = 0;
  for (auto _ : state) {
    const std::size_t rss_before = resident_bytes();
    docqa::VerbatimIndex index(text);
    if (!check_all(index, wanted, state)) {
      return;
    }
    index_bytes = index.memory_bytes();
    const std::size_t rss_after = resident_bytes();
    rss_growth = std::max(rss_growth, rss_after > rss_before ? rss_after - rss_before : 0);
  }
  state.counters["index_MB"] = static_cast<double>(index_bytes) / 1e6;
  state.counters["rss_growth_MB"] = static_cast<double>(rss_growth) / 1e6;
  state.counters["document_MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_VerbatimIndex_Check8Cold)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VerbatimIndex_Check8Warm(benchmark::State& state) {
  const std::vector<Quote> wanted = quotes();
  docqa::VerbatimIndex index(document());
  if (!check_all(index, wanted, state)) {
    return;
  }
  for (auto _ : state) {
    if (!check_all(index, wanted, state)) {
      return;
    }
  }
}
BENCHMARK(BM_VerbatimIndex_Check8Warm)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VerbatimIndex_Check8Exact(benchmark::State& state) {
  std::vector<Quote> wanted;
  for (int i = 1; i <= 8; ++i) {
    wanted.push_back({excerpt(0.1 * i, " "), MatchLevel::exact});
  }
  std::size_t index_bytes = 0;
  for (auto _ : state) {
    docqa::VerbatimIndex index(document());
    if (!check_all(index, wanted, state)) {
      return;
    }
    index_bytes = index.memory_bytes();
  }
  state.counters["index_MB"] = static_cast<double>(index_bytes) / 1e6;
}
BENCHMARK(BM_VerbatimIndex_Check8Exact)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
} // namespace ralph::bench
