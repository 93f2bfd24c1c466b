#include "ralph/docqa/qa_answer.h"

#include "json_object.h"

#include "ralph/core/json.h"
#include "ralph/core/try.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::docqa {
namespace {

Result<std::vector<std::string>> strings(const nlohmann::json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end()) {
    return fail(ErrorKind::parse, fmt::format("the answer has no \"{}\" list", key));
  }
  if (!found->is_array()) {
    return fail(ErrorKind::parse, fmt::format("\"{}\" must be a list of strings", key));
  }
  std::vector<std::string> items;
  for (const auto& item : *found) {
    if (!item.is_string()) {
      return fail(ErrorKind::parse,
                  fmt::format("\"{}\" item {} is not a string", key, items.size() + 1));
    }
    items.push_back(item.get<std::string>());
  }
  return items;
}

} // namespace

Result<QaAnswer> parse_qa_answer(std::string_view text) {
  const std::string_view candidate = json_object_text(text);
  if (candidate.empty()) {
    return fail(ErrorKind::parse,
                "the answer is not the JSON object {\"answer\": [...], \"evidence\": [...]}");
  }
  TRY_ASSIGN(const nlohmann::json parsed, parse_json(candidate, "answer"));
  if (!parsed.is_object()) {
    return fail(ErrorKind::parse, "the answer is JSON but not an object");
  }
  QaAnswer answer;
  TRY_ASSIGN(answer.bullets, strings(parsed, "answer"));
  TRY_ASSIGN(answer.quotes, strings(parsed, "evidence"));
  return answer;
}

std::string qa_answer_json(const QaAnswer& answer) {
  nlohmann::json object{{"answer", answer.bullets}, {"evidence", answer.quotes}};
  return object.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace ralph::docqa
