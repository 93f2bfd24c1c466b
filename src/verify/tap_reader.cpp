#include "tap_reader.h"

#include "ralph/core/text.h"

#include <charconv>

namespace ralph::verify {
namespace {

// The number at the start of `text`, and what follows it; nullopt when there is none.
std::optional<std::pair<int, std::string_view>> leading_number(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || value < 0) {
    return std::nullopt;
  }
  return std::pair{value, text.substr(static_cast<std::size_t>(end - text.data()))};
}

// node's "# tests 6": the count after `key`, when `body` is that line.
std::optional<int> node_count(std::string_view body, std::string_view key) {
  if (!body.starts_with("# ") || !body.substr(2).starts_with(key) ||
      body.size() <= 2 + key.size() || body[2 + key.size()] != ' ') {
    return std::nullopt;
  }
  const auto number = leading_number(body.substr(3 + key.size()));
  if (!number || !number->second.empty()) {
    return std::nullopt;
  }
  return number->first;
}

} // namespace

void TapReader::on_line(std::string_view text) {
  const std::size_t indent = text.find_first_not_of(' ');
  if (indent == std::string_view::npos) {
    return;
  }
  const std::string_view body = text.substr(indent);
  if (body.starts_with("ok ")) {
    result(indent, true, body.substr(3));
  } else if (body.starts_with("not ok ")) {
    result(indent, false, body.substr(7));
  } else if (body.starts_with("1..")) {
    const auto plan = leading_number(body.substr(3));
    if (plan && (plan->second.empty() || plan->second.starts_with(" "))) {
      m_marked = true;
      if (indent == 0) {
        m_plan = m_plan.value_or(0) + plan->first; // several streams, one after the other
      }
    }
  } else if (body.starts_with("TAP version ")) {
    m_marked = true;
  } else if (body.starts_with("# Subtest: ")) {
    m_subtests.enter(indent, trim(body.substr(11)));
  } else if (indent == 0 && body.starts_with("# ")) {
    for (auto [key, count] :
         {std::pair{"tests", &m_node_tests}, std::pair{"pass", &m_node_pass},
          std::pair{"fail", &m_node_fail}, std::pair{"cancelled", &m_node_cancelled}}) {
      if (const auto value = node_count(body, key)) {
        *count = *value;
      }
    }
  }
}

void TapReader::result(std::size_t indent, bool ok, std::string_view rest) {
  const auto number = leading_number(rest);
  if (!number || !(number->second.empty() || number->second.starts_with(" "))) {
    return; // "ok 200 files" would be TAP only with a number alone
  }
  // Children's results come before their parent's, one level deeper: the parent is not a test.
  const bool parent = m_last_indent && *m_last_indent > indent;
  m_last_indent = indent;
  m_nested = m_nested || indent > 0;
  if (parent) {
    return;
  }
  std::string_view description = trim(number->second);
  std::string_view directive;
  if (const std::size_t hash = description.starts_with("#") ? 0 : description.find(" # ");
      hash != std::string_view::npos) {
    directive = trim(description.substr(description.find('#', hash) + 1));
    description = trim(description.substr(0, hash));
  }
  if (description.starts_with("- ")) {
    description = trim(description.substr(2));
  }
  // A directive's word in any case: "SKIP", "skip", "Skipped: why", "TODO".
  if (starts_with_ignoring_case(directive, "skip") ||
      (!ok && starts_with_ignoring_case(directive, "todo"))) {
    return; // skipped, or an expected failure
  }
  std::string name = m_subtests.above(indent, " > ");
  name += description.empty() ? "test " + std::to_string(number->first) : std::string(description);
  if (ok) {
    ++m_passed;
    m_passing.add(std::move(name));
  } else {
    ++m_failed;
    m_failing.add(std::move(name));
  }
}

TapCounts TapReader::counts() const {
  if (m_node_tests) {
    return TapCounts{.node = true,
                     .failed = m_node_fail.value_or(m_failed) + m_node_cancelled.value_or(0),
                     .passed = m_node_pass.value_or(m_passed),
                     .total = m_node_tests};
  }
  return TapCounts{
      .failed = m_failed, .passed = m_passed, .total = m_nested ? std::nullopt : m_plan};
}

} // namespace ralph::verify
