#include "ralph/verify/judge_verdict.h"

#include "verify/judge_history.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <utility>
#include <vector>

namespace ralph::verify {
namespace {

struct CategoryInfo {
  std::string_view name;
  std::string_view description;
};

constexpr std::array<CategoryInfo, 6> k_categories = {{
    {"goal_missed", "the answer does not address the actual request, or claims work that was not "
                    "done"},
    {"incomplete", "part of what was asked is missing, truncated, or left for later"},
    {"rule_violation", "the answer breaks a rule written in the user's rules files"},
    {"tone_mismatch", "the tone or style contradicts what the request or the rules ask for"},
    {"refusal", "the agent declined a legitimate request it could have done"},
    {"blocked", "the request cannot be done as asked; more attempts would not help"},
}};

// A verdict line as written on one line of the text form.
struct LineVerdict {
  bool pass = false;
  std::string category;
  std::string feedback;
};

// Whitespace and markdown bold markers at the front.
void skip_decoration(std::string_view& text) {
  for (;;) {
    text = trim(text);
    if (text.starts_with("**")) {
      text.remove_prefix(2);
      continue;
    }
    return;
  }
}

// Whitespace and markdown bold markers at the back.
void drop_trailing_decoration(std::string_view& text) {
  for (;;) {
    text = trim(text);
    if (text.ends_with("**")) {
      text.remove_suffix(2);
      continue;
    }
    return;
  }
}

bool is_category(std::string_view text) {
  if (text.empty()) {
    return false;
  }
  for (char c : text) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) {
      return false;
    }
  }
  return true;
}

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// `PASS` or `FAIL [category]: feedback`, alone on the line up to the tolerated decoration;
// nullopt for anything else (a verdict word inside a sentence included).
std::optional<LineVerdict> parse_verdict_line(std::string_view line) {
  std::string_view s = trim(line);
  if (s.size() >= 2 && s.front() == '`' && s.back() == '`') {
    s = s.substr(1, s.size() - 2);
  }
  skip_decoration(s);
  drop_trailing_decoration(s);
  for (std::string_view label : {"final verdict", "verdict"}) {
    if (!starts_with_ignoring_case(s, label)) {
      continue;
    }
    std::string_view after = s.substr(label.size());
    skip_decoration(after);
    if (after.starts_with(':')) {
      after.remove_prefix(1);
      skip_decoration(after);
      s = after;
    }
    break;
  }
  if (s.size() < 4 || (s.size() > 4 && is_word_char(s[4]))) {
    return std::nullopt;
  }
  std::string_view rest = s.substr(4);
  if (equals_ignoring_case(s.substr(0, 4), "pass")) {
    skip_decoration(rest);
    if (rest.starts_with('.')) {
      rest.remove_prefix(1);
    }
    if (!trim(rest).empty()) {
      return std::nullopt;
    }
    return LineVerdict{.pass = true};
  }
  if (!equals_ignoring_case(s.substr(0, 4), "fail")) {
    return std::nullopt;
  }
  skip_decoration(rest);
  const std::size_t close = rest.find(']');
  if (!rest.starts_with('[') || close == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view category = trim(rest.substr(1, close - 1));
  if (!is_category(category)) {
    return std::nullopt;
  }
  rest.remove_prefix(close + 1);
  skip_decoration(rest);
  for (std::string_view separator : {":", "-", "\u2014", "\u2013"}) { // also em and en dashes
    if (rest.starts_with(separator)) {
      rest.remove_prefix(separator.size());
      break;
    }
  }
  skip_decoration(rest);
  std::string_view feedback = rest == "." ? std::string_view() : rest;
  return LineVerdict{false, std::string(category), std::string(feedback)};
}

JudgeReply malformed(std::string message, std::string_view reasoning = {}) {
  return {Outcome::error, Category::malformed, std::move(message), std::string(trim(reasoning))};
}

std::string excerpt(std::string_view text) {
  const std::string_view head = utf8_prefix(trim(text), 120);
  return fmt::format("\"{}{}\"", head, head.size() < trim(text).size() ? "…" : "");
}

std::string fail_feedback(std::string_view category, std::string_view feedback) {
  if (!trim(feedback).empty()) {
    return std::string(trim(feedback));
  }
  const std::string_view description = judge_category_description(category);
  if (description.empty()) {
    return fmt::format("The judge rated the answer `{}` without details.", category);
  }
  return fmt::format("The judge rated the answer `{}` without details: {}.", category, description);
}

JudgeReply from_json(std::string_view text, std::string_view before) {
  auto parsed = parse_json(text, "judge verdict");
  if (!parsed) {
    return malformed(fmt::format("the judge's JSON output is invalid: {}", parsed.error().message),
                     before);
  }
  const nlohmann::json& object = *parsed;
  if (!object.is_object()) {
    return malformed("the judge's JSON output is not an object", before);
  }
  const auto text_field = [&](const char* key) -> std::optional<std::string> {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
      return std::string();
    }
    if (!it->is_string()) {
      return std::nullopt;
    }
    return std::string(trim(it->get_ref<const std::string&>()));
  };
  const auto verdict = text_field("verdict");
  const auto category_text = text_field("category");
  const auto feedback = text_field("feedback");
  const auto reasoning = text_field("reasoning");
  if (!verdict || !category_text || !feedback || !reasoning) {
    return malformed("the judge's JSON output has a field that is not a string", before);
  }
  std::string reasons = std::string(trim(before));
  if (!reasoning->empty()) {
    reasons += reasons.empty() ? *reasoning : "\n" + *reasoning;
  }
  const bool pass = equals_ignoring_case(*verdict, "pass");
  if (!pass && !equals_ignoring_case(*verdict, "fail")) {
    return malformed(
        fmt::format("the judge's JSON verdict is {} instead of PASS or FAIL", excerpt(*verdict)),
        reasons);
  }
  const std::string category =
      equals_ignoring_case(*category_text, "none") ? std::string() : *category_text;
  if (!category.empty() && !is_category(category)) {
    return malformed(
        fmt::format("the judge's category {} is not a [a-z_]+ name", excerpt(category)), reasons);
  }
  if (pass && !category.empty()) {
    return malformed(fmt::format("the judge's verdict is contradictory: PASS with the failure "
                                 "category `{}`",
                                 category),
                     reasons);
  }
  if (pass) {
    return {.result = Outcome::pass, .feedback = *feedback, .reasoning = reasons};
  }
  if (category.empty()) {
    return malformed("the judge's FAIL verdict has no category", reasons);
  }
  return {Outcome::fail, Category::named(category), fail_feedback(category, *feedback), reasons};
}

bool is_fence(std::string_view line) {
  line = trim(line);
  if (!line.starts_with("```")) {
    return false;
  }
  line.remove_prefix(3);
  for (char c : line) {
    if (!is_word_char(c)) {
      return false; // ```json and ``` are fences; ``` followed by text is not
    }
  }
  return true;
}

// The text between two lines (views into the same string), both excluded.
std::string_view between(std::string_view whole, std::string_view first, std::string_view last) {
  const auto begin = static_cast<std::size_t>(first.data() + first.size() - whole.data());
  const auto end = static_cast<std::size_t>(last.data() - whole.data());
  return begin < end ? whole.substr(begin, end - begin) : std::string_view();
}

JudgeReply from_text(std::string_view output, const std::vector<std::string_view>& lines) {
  std::size_t last = lines.size();
  while (last > 0 && (trim(lines[last - 1]).empty() || is_fence(lines[last - 1]))) {
    --last;
  }
  if (last == 0) {
    return malformed("the judge's output has no verdict line");
  }
  const std::string_view final_line = lines[last - 1];
  const std::string_view reasoning =
      between(output, std::string_view(output.data(), 0), final_line);
  const std::optional<LineVerdict> verdict = parse_verdict_line(final_line);
  if (!verdict) {
    return malformed(fmt::format("the judge's last line is not a verdict (expected `PASS` or "
                                 "`FAIL [category]: feedback`): {}",
                                 excerpt(final_line)),
                     reasoning);
  }
  for (std::size_t i = 0; i + 1 < last; ++i) {
    const std::optional<LineVerdict> earlier = parse_verdict_line(lines[i]);
    if (earlier && earlier->pass != verdict->pass) {
      return malformed(fmt::format("the judge's output is contradictory: an earlier line says {}, "
                                   "the last line says {}",
                                   earlier->pass ? "PASS" : "FAIL",
                                   verdict->pass ? "PASS" : "FAIL"),
                       reasoning);
    }
  }
  if (verdict->pass) {
    return {.result = Outcome::pass, .reasoning = std::string(trim(reasoning))};
  }
  return {Outcome::fail, Category::named(verdict->category),
          fail_feedback(verdict->category, verdict->feedback), std::string(trim(reasoning))};
}

} // namespace

bool is_judge_category(std::string_view category) {
  return !judge_category_description(category).empty();
}

std::string_view judge_category_description(std::string_view category) {
  for (const CategoryInfo& info : k_categories) {
    if (info.name == category) {
      return info.description;
    }
  }
  return {};
}

JudgeReply parse_judge_reply(std::string_view output) {
  const std::string_view body = trim(output);
  if (body.empty()) {
    return malformed("the judge's output was empty");
  }
  if (body.front() == '{') {
    return from_json(body, {});
  }
  const std::vector<std::string_view> lines = split_lines(body);
  // A fenced JSON object closing the output; anything before it is reasoning.
  if (lines.size() >= 3 && is_fence(lines.back())) {
    for (std::size_t open = lines.size() - 1; open-- > 0;) {
      if (!is_fence(lines[open])) {
        continue;
      }
      const std::string_view inner = trim(between(body, lines[open], lines.back()));
      if (inner.starts_with('{')) {
        return from_json(inner, between(body, std::string_view(body.data(), 0), lines[open]));
      }
      break;
    }
  }
  return from_text(body, lines);
}

} // namespace ralph::verify
