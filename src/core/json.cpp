#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <utility>

namespace ralph {
namespace {

using json = nlohmann::json;

// One of nlohmann's SAX handlers (its DOM builder, or its acceptor that builds nothing) behind a
// depth check, and an error handler that records instead of throwing. One pass, no exceptions:
// parse(text, nullptr, false) throws nothing either, but says neither where nor why, and a second
// throwing parse to find out rethrows out_of_range for 1e999 (not a parse_error), which escaped
// parse_json before.
template <typename Inner> class DepthLimited {
public:
  template <typename... Args>
  explicit DepthLimited(Args&&... args) : m_inner(std::forward<Args>(args)...) {}

  bool null() { return m_inner.null(); }
  bool boolean(bool value) { return m_inner.boolean(value); }
  bool number_integer(json::number_integer_t value) { return m_inner.number_integer(value); }
  bool number_unsigned(json::number_unsigned_t value) { return m_inner.number_unsigned(value); }
  bool number_float(json::number_float_t value, const json::string_t& text) {
    return m_inner.number_float(value, text);
  }
  bool string(json::string_t& value) { return m_inner.string(value); }
  bool binary(json::binary_t& value) { return m_inner.binary(value); }
  bool start_object(std::size_t size) { return enter() && m_inner.start_object(size); }
  bool key(json::string_t& value) { return m_inner.key(value); }
  bool end_object() {
    --m_depth;
    return m_inner.end_object();
  }
  bool start_array(std::size_t size) { return enter() && m_inner.start_array(size); }
  bool end_array() {
    --m_depth;
    return m_inner.end_array();
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

  Inner m_inner;
  std::size_t m_depth = 0;
  bool m_too_deep = false;
  std::size_t m_position = 0;
  const char* m_problem = "malformed JSON";
};

} // namespace

bool accepts_json(std::string_view text) {
  DepthLimited<nlohmann::detail::json_sax_acceptor<json>> acceptor;
  return json::sax_parse(text.begin(), text.end(), &acceptor);
}

Result<json> parse_json(std::string_view text, std::string_view what) {
  json value;
  DepthLimited<nlohmann::detail::json_sax_dom_parser<json>> builder(value, false);
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
