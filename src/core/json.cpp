#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace ralph {
namespace {

using json = nlohmann::json;

// nlohmann's own DOM builder behind a depth check, and an error handler that records instead
// of throwing. One pass, no exceptions: parse(text, nullptr, false) throws nothing either, but
// says neither where nor why, and a second throwing parse to find out rethrows out_of_range for
// 1e999 (not a parse_error), which escaped parse_json before.
class DepthLimitedBuilder {
public:
  explicit DepthLimitedBuilder(json& result) : m_builder(result, false) {}

  bool null() { return m_builder.null(); }
  bool boolean(bool value) { return m_builder.boolean(value); }
  bool number_integer(json::number_integer_t value) { return m_builder.number_integer(value); }
  bool number_unsigned(json::number_unsigned_t value) { return m_builder.number_unsigned(value); }
  bool number_float(json::number_float_t value, const json::string_t& text) {
    return m_builder.number_float(value, text);
  }
  bool string(json::string_t& value) { return m_builder.string(value); }
  bool binary(json::binary_t& value) { return m_builder.binary(value); }
  bool start_object(std::size_t size) { return enter() && m_builder.start_object(size); }
  bool key(json::string_t& value) { return m_builder.key(value); }
  bool end_object() {
    --m_depth;
    return m_builder.end_object();
  }
  bool start_array(std::size_t size) { return enter() && m_builder.start_array(size); }
  bool end_array() {
    --m_depth;
    return m_builder.end_array();
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& error) {
    m_position = position;
    // 406: a number out of a double's range. The token is not quoted: it may be a secret.
    m_problem = error.id == 406 ? "number out of range" : "malformed JSON";
    return false;
  }

  bool too_deep() const { return m_too_deep; }
  std::size_t position() const { return m_position; }
  const char* problem() const { return m_problem; }

private:
  bool enter() {
    m_too_deep = ++m_depth > k_max_json_depth;
    return !m_too_deep;
  }

  nlohmann::detail::json_sax_dom_parser<json> m_builder;
  std::size_t m_depth = 0;
  bool m_too_deep = false;
  std::size_t m_position = 0;
  const char* m_problem = "malformed JSON";
};

// The same limits without building anything.
class DepthLimitedAcceptor {
public:
  bool null() { return true; }
  bool boolean(bool /*value*/) { return true; }
  bool number_integer(json::number_integer_t /*value*/) { return true; }
  bool number_unsigned(json::number_unsigned_t /*value*/) { return true; }
  bool number_float(json::number_float_t /*value*/, const json::string_t& /*text*/) { return true; }
  bool string(json::string_t& /*value*/) { return true; }
  bool binary(json::binary_t& /*value*/) { return true; }
  bool start_object(std::size_t /*size*/) { return ++m_depth <= k_max_json_depth; }
  bool key(json::string_t& /*value*/) { return true; }
  bool end_object() {
    --m_depth;
    return true;
  }
  bool start_array(std::size_t /*size*/) { return ++m_depth <= k_max_json_depth; }
  bool end_array() {
    --m_depth;
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& /*error*/) {
    return false;
  }

private:
  std::size_t m_depth = 0;
};

} // namespace

bool accepts_json(std::string_view text) {
  DepthLimitedAcceptor acceptor;
  return json::sax_parse(text.begin(), text.end(), &acceptor);
}

Result<json> parse_json(std::string_view text, std::string_view what) {
  json value;
  DepthLimitedBuilder builder(value);
  if (json::sax_parse(text.begin(), text.end(), &builder)) {
    return value;
  }
  if (builder.too_deep()) {
    return fail(ErrorKind::parse,
                fmt::format("{}: JSON nested deeper than {} levels", what, k_max_json_depth));
  }
  // nlohmann counts one past the end when the input stops early.
  const std::size_t position = std::min(builder.position(), text.size());
  return fail(ErrorKind::parse, fmt::format("{}: {} near byte {} of {}", what, builder.problem(),
                                            position, text.size()));
}

} // namespace ralph
