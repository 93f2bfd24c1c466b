#include "ralph/verify/checks_verifier.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/verify/json_schema.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include <utility>

namespace ralph::verify {

struct ChecksVerifier::Rules {
  ChecksSettings settings;
  std::vector<std::unique_ptr<RE2>> must_match;
  std::vector<std::unique_ptr<RE2>> must_not_match;
  std::optional<JsonSchema> schema;
};

namespace {

constexpr std::size_t k_quoted_bytes = 80;

std::string quoted(std::string_view text) {
  const std::string_view kept = utf8_prefix(text, k_quoted_bytes);
  return fmt::format("\"{}{}\"", to_valid_utf8(kept), kept.size() < text.size() ? "..." : "");
}

Result<std::vector<std::unique_ptr<RE2>>> compile_patterns(const std::vector<std::string>& patterns,
                                                           std::string_view rule) {
  RE2::Options options;
  options.set_log_errors(false);
  std::vector<std::unique_ptr<RE2>> out;
  for (const std::string& pattern : patterns) {
    auto regex = std::make_unique<RE2>(pattern, options);
    if (!regex->ok()) {
      return fail(ErrorKind::config, fmt::format("checks: {} pattern `{}` is not a valid RE2 "
                                                 "regular expression: {}",
                                                 rule, pattern, regex->error()));
    }
    out.push_back(std::move(regex));
  }
  return out;
}

// A bound of 0 is no bound.
Result<void> check_range(std::size_t min, std::size_t max, std::string_view what) {
  if (min > 0 && max > 0 && min > max) {
    return fail(ErrorKind::config,
                fmt::format("checks: min_{0} ({1}) is greater than max_{0} ({2})", what, min, max));
  }
  return {};
}

// "expected 3–7 bullets, found 9"; nullopt when `count` is within the bounds (0: none).
std::optional<std::string> out_of_range(std::size_t count, std::size_t min, std::size_t max,
                                        std::string_view unit) {
  if ((min == 0 || count >= min) && (max == 0 || count <= max)) {
    return std::nullopt;
  }
  if (min > 0 && max > 0) {
    return fmt::format("expected {}–{} {}, found {}", min, max, unit, count);
  }
  if (min > 0) {
    return fmt::format("expected at least {} {}, found {}", min, unit, count);
  }
  return fmt::format("expected at most {} {}, found {}", max, unit, count);
}

bool is_fence(std::string_view line) {
  const std::string_view text = trim(line);
  return text.substr(0, 3) == "```" || text.substr(0, 3) == "~~~";
}

// `-`, `*` or `1.`/`1)` followed by a space and something, or `•`, after optional indentation.
bool is_bullet(std::string_view line) {
  const std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) {
    return false;
  }
  std::string_view rest = line.substr(start);
  if (rest.substr(0, 3) == "•") {
    return !trim(rest.substr(3)).empty();
  }
  std::size_t marker = 0;
  if (rest.front() == '-' || rest.front() == '*') {
    marker = 1;
  } else {
    const std::size_t digits = std::min(rest.find_first_not_of("0123456789"), rest.size());
    if (digits == 0 || digits > 9 || digits == rest.size() ||
        (rest[digits] != '.' && rest[digits] != ')')) {
      return false;
    }
    marker = digits + 1;
  }
  return marker < rest.size() && (rest[marker] == ' ' || rest[marker] == '\t') &&
         !trim(rest.substr(marker)).empty();
}

std::size_t count_bullets(std::string_view text) {
  std::size_t count = 0;
  bool in_code = false;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (is_fence(line)) {
      in_code = !in_code;
    } else if (!in_code && is_bullet(line)) {
      ++count;
    }
  }
  return count;
}

// The JSON of an answer: all of it, or the inside of the one ```json (or bare ```) block that
// makes up the whole answer.
std::string_view json_text(std::string_view answer) {
  const std::string_view text = trim(answer);
  if (text.substr(0, 3) != "```" || text.size() < 6 || text.substr(text.size() - 3) != "```") {
    return text;
  }
  const std::size_t first_newline = text.find('\n');
  if (first_newline == std::string_view::npos) {
    return text;
  }
  const std::string info = to_lower_ascii(trim(text.substr(3, first_newline - 3)));
  const std::string_view inside =
      text.substr(first_newline + 1, text.size() - 3 - first_newline - 1);
  if ((!info.empty() && info != "json") || inside.find("```") != std::string_view::npos) {
    return text;
  }
  return inside;
}

void check_json(const ChecksVerifier::Rules& rules, std::string_view answer,
                std::vector<std::string>& failures) {
  auto value = parse_json(json_text(answer), "the answer");
  if (!value) {
    failures.push_back(fmt::format("expected valid JSON (bare, or as one ```json block), found {}",
                                   value.error().message));
    return;
  }
  if (!rules.schema) {
    return;
  }
  for (const std::string& error : rules.schema->validate(*value)) {
    failures.push_back("JSON schema: " + error);
  }
}

std::size_t rule_count(const ChecksVerifier::Rules& rules) {
  const ChecksSettings& settings = rules.settings;
  return settings.must_match.size() + settings.must_not_match.size() +
         (settings.min_chars > 0 || settings.max_chars > 0 ? 1 : 0) +
         (settings.min_bullets > 0 || settings.max_bullets > 0 ? 1 : 0) + (settings.json ? 1 : 0) +
         (rules.schema ? 1 : 0);
}

} // namespace

ChecksVerifier::ChecksVerifier(std::unique_ptr<const Rules> rules) : m_rules(std::move(rules)) {}

ChecksVerifier::~ChecksVerifier() = default;

std::string ChecksVerifier::name() const {
  return "checks";
}

Verdict ChecksVerifier::verify(const Attempt& attempt, const CancelToken& /*cancel*/) {
  const auto started = std::chrono::steady_clock::now();
  const ChecksSettings& options = m_rules->settings;
  const std::string& answer = attempt.answer;
  std::vector<std::string> failures;
  for (std::size_t i = 0; i < options.must_match.size(); ++i) {
    if (!RE2::PartialMatch(answer, *m_rules->must_match[i])) {
      failures.push_back(
          fmt::format("expected a match for `{}` (must_match), found none", options.must_match[i]));
    }
  }
  for (std::size_t i = 0; i < options.must_not_match.size(); ++i) {
    re2::StringPiece match;
    if (m_rules->must_not_match[i]->Match(answer, 0, answer.size(), RE2::UNANCHORED, &match, 1)) {
      failures.push_back(fmt::format("expected no match for `{}` (must_not_match), found {}",
                                     options.must_not_match[i],
                                     quoted(std::string_view(match.data(), match.size()))));
    }
  }
  if (auto problem =
          out_of_range(utf8_length(answer), options.min_chars, options.max_chars, "characters")) {
    failures.push_back(std::move(*problem));
  }
  if (options.json || m_rules->schema) {
    check_json(*m_rules, answer, failures);
  }
  if (auto problem = out_of_range(count_bullets(answer), options.min_bullets, options.max_bullets,
                                  "bullets")) {
    failures.push_back(std::move(*problem));
  }

  Verdict verdict;
  verdict.verifier = name();
  const std::size_t rules = rule_count(*m_rules);
  if (failures.empty()) {
    verdict.result = Outcome::pass;
    verdict.feedback = fmt::format("all {} checks passed", rules);
  } else {
    verdict.result = Outcome::fail;
    verdict.category = Category::check_failed;
    verdict.feedback = fmt::format("The answer broke {} of the checks:", failures.size());
    for (std::size_t i = 0; i < failures.size(); ++i) {
      verdict.feedback += fmt::format("\n{}. {}", i + 1, failures[i]);
    }
  }
  verdict.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - started)
                            .count();
  return verdict;
}

Result<std::unique_ptr<ChecksVerifier>> make_checks_verifier(ChecksSettings settings,
                                                             std::string_view json_schema) {
  const ChecksSettings& options = settings;
  auto rules = std::make_unique<ChecksVerifier::Rules>();
  TRY_ASSIGN(rules->must_match, compile_patterns(options.must_match, "must_match"));
  TRY_ASSIGN(rules->must_not_match, compile_patterns(options.must_not_match, "must_not_match"));
  for (const auto& range : {check_range(options.min_chars, options.max_chars, "chars"),
                            check_range(options.min_bullets, options.max_bullets, "bullets")}) {
    TRY(range);
  }
  if (!json_schema.empty()) {
    auto schema = JsonSchema::compile(json_schema);
    if (!schema) {
      return fail(ErrorKind::config, "checks: json_schema rule: " + schema.error().message);
    }
    rules->schema = std::move(*schema);
  }
  rules->settings = std::move(settings);
  return std::make_unique<ChecksVerifier>(std::move(rules));
}

} // namespace ralph::verify
