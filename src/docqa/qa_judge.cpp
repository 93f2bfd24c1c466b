#include "ralph/docqa/qa_judge.h"

#include "json_object.h"

#include "ralph/core/json.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>

namespace ralph::docqa {
namespace {

constexpr std::string_view k_system = R"(You check whether an answer is supported by evidence.
You get a question, the answer's numbered bullets, and numbered excerpts of the source document.
The excerpts are the only source you may rely on: a bullet is supported only when the excerpts
state or directly imply it. Do not use outside knowledge. Judge every bullet.

Reply with one JSON object and nothing else:
{"ok": true|false, "issues": [{"bullet": N, "issue": "what is unsupported or wrong"}]}
"ok" is true only when every bullet is supported, and then "issues" is empty.)";

constexpr std::string_view k_schema = R"({"type":"object","properties":{"ok":{"type":"boolean"},
"issues":{"type":"array","items":{"type":"object","properties":{"bullet":{"type":"integer"},
"issue":{"type":"string"}},"required":["bullet","issue"],"additionalProperties":false}}},
"required":["ok","issues"],"additionalProperties":false})";

struct Reply {
  bool ok = false;
  std::vector<std::pair<std::int64_t, std::string>> issues;
};

Result<Reply> parse_reply(std::string_view text) {
  TRY_ASSIGN(const nlohmann::json object, parse_json(json_object_text(text), "judge reply"));
  if (!object.is_object() || !object.contains("ok") || !object["ok"].is_boolean()) {
    return fail(ErrorKind::parse, "the judge's reply has no boolean \"ok\"");
  }
  Reply reply;
  reply.ok = object["ok"].get<bool>();
  if (const auto issues = object.find("issues"); issues != object.end()) {
    if (!issues->is_array()) {
      return fail(ErrorKind::parse, "the judge's \"issues\" is not a list");
    }
    for (const auto& issue : *issues) {
      if (!issue.is_object() || !issue.contains("issue") || !issue["issue"].is_string()) {
        return fail(ErrorKind::parse, "a judge issue has no \"issue\" text");
      }
      const auto bullet = issue.find("bullet");
      reply.issues.emplace_back(
          bullet != issue.end() && bullet->is_number_integer() ? bullet->get<std::int64_t>() : 0,
          issue["issue"].get<std::string>());
    }
  }
  return reply;
}

// The first occurrences of a quote are evidence enough; a common phrase found hundreds of times
// would crowd out every other quote's window.
constexpr std::size_t k_occurrences_per_quote = 3;

} // namespace

std::vector<Span> qa_evidence_windows(const QaReport& report, const GroundedDocument& document,
                                      std::size_t window_chars) {
  std::vector<Span> used;
  for (const QuoteReport& quote : report.quotes) {
    if (!quote.match.level) {
      continue;
    }
    for (std::size_t i = 0; i < quote.match.occurrences.size() && i < k_occurrences_per_quote;
         ++i) {
      used.push_back(quote.match.occurrences[i]);
    }
  }
  return evidence_windows(used, window_chars, document.text());
}

std::string qa_judge_prompt(std::string_view question, const QaAnswer& answer,
                            const std::vector<Span>& windows, const GroundedDocument& document,
                            std::size_t context_chars) {
  std::string prompt = fmt::format("Question: {}\n\nAnswer bullets:\n", question);
  for (std::size_t i = 0; i < answer.bullets.size(); ++i) {
    prompt += fmt::format("{}. {}\n", i + 1, answer.bullets[i]);
  }
  prompt += fmt::format("\nEvidence from {}:\n", document.name());
  std::size_t shown = 0;
  for (const Span& window : windows) {
    const Location at = locate(document.text(), window.begin);
    std::string block = fmt::format(
        "\n[E{}] bytes {}-{} (line {}):\n{}\n", shown + 1, window.begin, window.end, at.line,
        to_valid_utf8(document.text().substr(window.begin, window.end - window.begin)));
    if (prompt.size() + block.size() > context_chars) {
      break;
    }
    prompt += block;
    ++shown;
  }
  if (shown < windows.size()) {
    prompt += fmt::format("\n[{} more excerpt(s) left out: the context budget is spent]\n",
                          windows.size() - shown);
  }
  return prompt;
}

verify::Verdict QaJudgeVerifier::verify(const verify::Attempt& attempt, const CancelToken& cancel) {
  const auto started = std::chrono::steady_clock::now();
  verify::Verdict verdict;
  verdict.verifier = name();
  const auto timed = [&] {
    verdict.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
    return verdict;
  };
  const auto finish = [&](verify::Outcome result, verify::Category category, std::string feedback) {
    verdict.result = result;
    verdict.category = std::move(category);
    verdict.feedback = std::move(feedback);
    return timed();
  };
  const QaReport report = m_checker.check(attempt.answer);
  const GroundedDocument& document = m_checker.document();
  if (!report.answer) {
    return finish(verify::Outcome::error, verify::Category::not_judged,
                  "not judged: the answer is not in the required form");
  }
  const std::vector<Span> windows = qa_evidence_windows(report, document, m_window_chars);
  if (windows.empty()) {
    return finish(verify::Outcome::error, verify::Category::not_judged,
                  "not judged: no quote was found in the document");
  }
  std::string user = qa_judge_prompt(attempt.goal, *report.answer, windows, document,
                                     m_client.settings().context_chars);
  const auto response =
      m_client.ask(std::string(k_system), std::move(user), k_schema, "verdict", cancel, verdict);
  if (!response) {
    return timed(); // ask() wrote the error into the verdict
  }
  const std::string& text = response->message.content;
  auto reply = parse_reply(text);
  if (!reply) {
    verdict.reasoning = text;
    return finish(verify::Outcome::error, verify::Category::malformed,
                  "the judge's reply is not the expected JSON: " + reply.error().message);
  }
  if (reply->ok && !reply->issues.empty()) {
    verdict.reasoning = text;
    return finish(verify::Outcome::error, verify::Category::malformed,
                  "the judge's reply is contradictory: ok, but with issues");
  }
  if (reply->ok) {
    return finish(verify::Outcome::pass, verify::Category::none, "");
  }
  std::string feedback;
  for (const auto& [bullet, issue] : reply->issues) {
    feedback += bullet > 0 ? fmt::format("bullet {}: {}\n", bullet, issue) : issue + "\n";
  }
  if (feedback.empty()) {
    feedback = "the evidence does not support the answer";
  }
  return finish(verify::Outcome::fail, verify::Category::unsupported, std::string(trim(feedback)));
}

} // namespace ralph::docqa
