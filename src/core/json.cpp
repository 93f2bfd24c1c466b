#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
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

const json* member(const json& value, std::string_view key) {
  if (!value.is_object()) {
    return nullptr;
  }
  const auto it = value.find(key);
  return it == value.end() ? nullptr : &*it;
}

std::string_view string_member(const json& value, std::string_view key) {
  const json* field = member(value, key);
  if (field == nullptr || !field->is_string()) {
    return {};
  }
  return field->get_ref<const std::string&>();
}

std::optional<std::int64_t> int_member(const json& value, std::string_view key) {
  const json* field = member(value, key);
  if (field == nullptr) {
    return std::nullopt;
  }
  if (field->is_number_unsigned()) {
    const auto number = field->get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(number);
  }
  if (field->is_number_integer()) {
    return field->get<std::int64_t>();
  }
  if (field->is_number_float()) {
    const double number = field->get<double>();
    // Casting a double outside the int64 range (or NaN) is undefined.
    if (number > -9e18 && number < 9e18) {
      return static_cast<std::int64_t>(number);
    }
  }
  return std::nullopt;
}

int int_member_or(const json& value, std::string_view key, int fallback, int low, int high) {
  const std::optional<std::int64_t> number = int_member(value, key);
  if (!number) {
    return fallback;
  }
  return static_cast<int>(std::clamp<std::int64_t>(*number, low, high));
}

bool bool_member(const json& value, std::string_view key, bool fallback) {
  const json* field = member(value, key);
  if (field == nullptr || !field->is_boolean()) {
    return fallback;
  }
  return field->get<bool>();
}

std::span<const json> array_member(const json& value, std::string_view key) {
  const json* field = member(value, key);
  if (field == nullptr || !field->is_array()) {
    return {};
  }
  return field->get_ref<const json::array_t&>();
}

json int_or_null(const std::optional<int>& value) {
  return value ? json(*value) : json(nullptr);
}

} // namespace ralph
