#include "ralph/docqa/qa_checks.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

namespace ralph::docqa {
namespace {

// Words with at least one letter or digit: "RLM" is one, "--" none.
std::size_t words(std::string_view text) {
  std::size_t count = 0;
  bool in_word = false;
  bool has_alnum = false;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const bool space = i == text.size() || std::isspace(static_cast<unsigned char>(text[i])) != 0;
    if (space) {
      count += in_word && has_alnum ? 1 : 0;
      in_word = false;
      has_alnum = false;
      continue;
    }
    in_word = true;
    const auto c = static_cast<unsigned char>(text[i]);
    has_alnum = has_alnum || std::isalnum(c) != 0 || c >= 0x80;
  }
  return count;
}

std::string shorten(std::string_view text) {
  constexpr std::size_t k_shown = 60;
  const std::string_view head = utf8_prefix(text, k_shown);
  return head.size() < text.size() ? std::string(head) + "…" : std::string(text);
}

// Quotes compare as duplicates when they are the same after case folding and whitespace.
std::string duplicate_key(std::string_view quote) {
  std::string key;
  bool space = false;
  for (const char c : trim(quote)) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      space = true;
      continue;
    }
    if (space && !key.empty()) {
      key += ' ';
    }
    space = false;
    key += to_lower_ascii(c);
  }
  return key;
}

bool in_own_prompts(std::string_view quote, const std::vector<std::string>& prompts) {
  for (const std::string& prompt : prompts) {
    VerbatimIndex index(prompt);
    if (index.find(quote, MatchLevel::casefold).level) {
      return true;
    }
  }
  return false;
}

void check_quote(QuoteReport& report, const GroundedDocument& document, const QaRules& rules,
                 std::set<std::string>& seen) {
  const std::string_view quote = report.quote;
  const std::size_t length = utf8_length(trim(quote));
  if (trim(quote).empty()) {
    report.problems.emplace_back("is empty");
    return;
  }
  if (length > rules.limits.max_quote_chars) {
    report.problems.push_back(fmt::format("is {} characters long; the limit is {}", length,
                                          rules.limits.max_quote_chars));
  }
  if (words(quote) < rules.limits.min_quote_words || length < rules.limits.min_quote_chars) {
    // Not looked up: a word or two occurs everywhere in a big document.
    report.problems.push_back(
        fmt::format("is too short to be evidence (at least {} words and {} characters)",
                    rules.limits.min_quote_words, rules.limits.min_quote_chars));
    return;
  }
  if (!seen.insert(duplicate_key(quote)).second) {
    report.problems.emplace_back("repeats an earlier quote");
  }
  if (in_own_prompts(quote, rules.own_prompts)) {
    report.problems.emplace_back("comes from the instructions or the question, not the document");
  }
  report.match = document.find(quote, MatchLevel::casefold);
  if (!report.match.level) {
    report.problems.emplace_back(
        "is not in the document; copy the exact words from it, do not paraphrase");
  } else if (*report.match.level > rules.limits.match_level) {
    report.problems.push_back(fmt::format(
        "matches the document only with {} folding ({}); copy it exactly as the document "
        "writes it (accepted: {})",
        to_string(*report.match.level),
        *report.match.level == MatchLevel::casefold
            ? "letter case differs"
            : "quotes, apostrophes, dashes or special spaces differ",
        to_string(rules.limits.match_level)));
  }
  report.accepted = report.problems.empty();
}

} // namespace

QaReport check_qa_answer(std::string_view answer_text, const GroundedDocument& document,
                         const QaRules& rules) {
  QaReport report;
  auto parsed = parse_qa_answer(answer_text);
  if (!parsed) {
    report.problems.push_back(parsed.error().message +
                              "; answer with only the JSON object {\"answer\": [bullets], "
                              "\"evidence\": [quotes]}");
    return report;
  }
  report.answer = std::move(*parsed);
  const QaAnswer& answer = *report.answer;
  if (answer.bullets.size() < rules.limits.min_bullets ||
      answer.bullets.size() > rules.limits.max_bullets) {
    report.problems.push_back(fmt::format("expected {}–{} answer bullets, found {}",
                                          rules.limits.min_bullets, rules.limits.max_bullets,
                                          answer.bullets.size()));
  }
  for (std::size_t i = 0; i < answer.bullets.size(); ++i) {
    if (trim(answer.bullets[i]).empty()) {
      report.problems.push_back(fmt::format("bullet {} is empty", i + 1));
    }
  }
  if (answer.quotes.size() < rules.limits.min_quotes ||
      answer.quotes.size() > rules.limits.max_quotes) {
    report.problems.push_back(fmt::format("expected {}–{} evidence quotes, found {}",
                                          rules.limits.min_quotes, rules.limits.max_quotes,
                                          answer.quotes.size()));
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < answer.quotes.size(); ++i) {
    QuoteReport& quote = report.quotes.emplace_back();
    quote.quote = answer.quotes[i];
    check_quote(quote, document, rules, seen);
    for (const std::string& problem : quote.problems) {
      report.problems.push_back(
          fmt::format("quote {} \"{}\" {}", i + 1, shorten(quote.quote), problem));
    }
  }
  return report;
}

std::string describe_quote_matches(const QaReport& report, const GroundedDocument& document) {
  std::string text;
  for (std::size_t i = 0; i < report.quotes.size(); ++i) {
    const QuoteReport& quote = report.quotes[i];
    if (!quote.match.level) {
      text += fmt::format("quote {}: not found\n", i + 1);
      continue;
    }
    constexpr std::size_t k_places = 5;
    std::vector<std::string> places;
    for (const Span& span : quote.match.occurrences) {
      if (places.size() == k_places) {
        places.push_back(fmt::format("and {} more", quote.match.occurrences.size() - k_places));
        break;
      }
      const Location at = locate(document.text(), span.begin);
      places.push_back(fmt::format("bytes {}-{} (line {}, column {})", span.begin, span.end,
                                   at.line, at.column));
    }
    text += fmt::format("quote {}: {}{}, {}\n", i + 1, to_string(*quote.match.level),
                        quote.accepted ? "" : " (not accepted)", fmt::join(places, "; "));
  }
  return text;
}

QaReport QaChecker::check(std::string_view answer) const {
  const std::lock_guard lock(m_mutex);
  if (!m_last_report || m_last_answer != answer) {
    m_last_report = check_qa_answer(answer, m_document, m_rules);
    m_last_answer = answer;
  }
  return *m_last_report;
}

verify::Verdict QaChecksVerifier::verify(const verify::Attempt& attempt,
                                         const CancelToken& /*cancel*/) {
  verify::Verdict verdict;
  verdict.verifier = name();
  const QaReport report = m_checker.check(attempt.answer);
  verdict.reasoning = describe_quote_matches(report, m_checker.document());
  if (report.passed()) {
    verdict.result = verify::Outcome::pass;
    return verdict;
  }
  verdict.result = verify::Outcome::fail;
  verdict.category = verify::Category::check_failed;
  for (std::size_t i = 0; i < report.problems.size(); ++i) {
    verdict.feedback += fmt::format("{}{}. {}", i == 0 ? "" : "\n", i + 1, report.problems[i]);
  }
  return verdict;
}

} // namespace ralph::docqa
