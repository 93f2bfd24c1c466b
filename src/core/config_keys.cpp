#include "config_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace ralph::config_detail {
namespace {

std::int64_t as_int(const Value& v) {
  return std::get<std::int64_t>(v);
}
const std::string& as_string(const Value& v) {
  return std::get<std::string>(v);
}
bool as_bool(const Value& v) {
  return std::get<bool>(v);
}
double as_number(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    return static_cast<double>(*i);
  }
  return std::get<double>(v);
}

Key string_key(std::string_view path, std::function<void(Config&, const std::string&)> set) {
  return {path, ValueKind::string, 0, 0,
          [set = std::move(set)](Config& c, const Value& v) { set(c, as_string(v)); }};
}

Key int_key(std::string_view path, double min, double max,
            std::function<void(Config&, std::int64_t)> set) {
  return {path, ValueKind::integer, min, max,
          [set = std::move(set)](Config& c, const Value& v) { set(c, as_int(v)); }};
}

Key bool_key(std::string_view path, std::function<void(Config&, bool)> set) {
  return {path, ValueKind::boolean, 0, 0,
          [set = std::move(set)](Config& c, const Value& v) { set(c, as_bool(v)); }};
}

Key number_key(std::string_view path, double min, double max,
               std::function<void(Config&, double)> set) {
  return {path, ValueKind::number, min, max,
          [set = std::move(set)](Config& c, const Value& v) { set(c, as_number(v)); }};
}

std::vector<Key> make_keys() {
  constexpr double k_max_int = 1e9;
  return {
      string_key("model", [](Config& c, const std::string& v) { c.model = v; }),
      string_key("base_url", [](Config& c, const std::string& v) { c.base_url = v; }),
      int_key("agent.max_steps", 1, 100000,
              [](Config& c, std::int64_t v) { c.agent.max_steps = static_cast<int>(v); }),
      int_key("agent.max_tokens", 1, 10'000'000,
              [](Config& c, std::int64_t v) { c.agent.max_tokens = static_cast<int>(v); }),
      number_key("agent.temperature", 0, 2, [](Config& c, double v) { c.agent.temperature = v; }),
      bool_key("agent.stream", [](Config& c, bool v) { c.agent.stream = v; }),
      string_key("agent.system_prompt",
                 [](Config& c, const std::string& v) { c.agent.system_prompt = v; }),
      int_key("tools.shell_timeout", 1, 86400,
              [](Config& c, std::int64_t v) { c.tools.shell_timeout_s = v; }),
      int_key("tools.output_limit", 1000, k_max_int,
              [](Config& c, std::int64_t v) { c.tools.output_limit = v; }),
      int_key("http.connect_timeout", 1, 3600,
              [](Config& c, std::int64_t v) { c.http.connect_timeout_s = v; }),
      int_key("http.idle_timeout", 1, 86400,
              [](Config& c, std::int64_t v) { c.http.idle_timeout_s = v; }),
      int_key("http.max_retries", 0, 20,
              [](Config& c, std::int64_t v) { c.http.max_retries = static_cast<int>(v); }),
      bool_key("loop.enabled", [](Config& c, bool v) { c.loop.enabled = v; }),
      int_key("loop.max_iterations", 1, 100000,
              [](Config& c, std::int64_t v) { c.loop.max_iterations = static_cast<int>(v); }),
  };
}

std::string_view kind_name(const Value& value) {
  switch (value.index()) {
  case 0:
    return "a boolean";
  case 1:
    return "an integer";
  case 2:
    return "a number";
  default:
    return "a string";
  }
}

std::string show(const Value& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return fmt::format("\"{}\"", v);
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

} // namespace

const std::vector<Key>& keys() {
  static const std::vector<Key> k_keys = make_keys();
  return k_keys;
}

const Key* find_key(std::string_view path) {
  for (const Key& key : keys()) {
    if (key.path == path) {
      return &key;
    }
  }
  return nullptr;
}

std::string expected(const Key& key) {
  switch (key.kind) {
  case ValueKind::boolean:
    return "true or false";
  case ValueKind::integer:
    return fmt::format("an integer from {} to {}", key.min, key.max);
  case ValueKind::number:
    return fmt::format("a number from {} to {}", key.min, key.max);
  case ValueKind::string:
    return "a string";
  }
  return "a value";
}

std::optional<std::string> assign(Config& config, const Key& key, const Value& value) {
  const bool kind_ok =
      (key.kind == ValueKind::boolean && std::holds_alternative<bool>(value)) ||
      (key.kind == ValueKind::integer && std::holds_alternative<std::int64_t>(value)) ||
      (key.kind == ValueKind::number &&
       (std::holds_alternative<double>(value) || std::holds_alternative<std::int64_t>(value))) ||
      (key.kind == ValueKind::string && std::holds_alternative<std::string>(value));
  if (!kind_ok) {
    return fmt::format("expected {}, got {}", expected(key), kind_name(value));
  }
  if (key.kind == ValueKind::integer || key.kind == ValueKind::number) {
    const double number = as_number(value);
    if (!std::isfinite(number) || number < key.min || number > key.max) {
      return fmt::format("expected {}, got {}", expected(key), show(value));
    }
  }
  key.set(config, value);
  return std::nullopt;
}

std::optional<Value> parse_text(const Key& key, std::string_view text) {
  switch (key.kind) {
  case ValueKind::string:
    return Value(std::string(text));
  case ValueKind::boolean: {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") {
      return Value(true);
    }
    if (lower == "false" || lower == "0" || lower == "no" || lower == "off") {
      return Value(false);
    }
    return std::nullopt;
  }
  case ValueKind::integer: {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
      return std::nullopt;
    }
    return Value(value);
  }
  case ValueKind::number: {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
      return std::nullopt;
    }
    return Value(value);
  }
  }
  return std::nullopt;
}

std::string closest_key(std::string_view path) {
  std::string best;
  std::size_t best_distance = 4; // further than 3 edits is not a typo
  for (const Key& key : keys()) {
    const std::size_t distance = edit_distance(path, key.path);
    if (distance < best_distance) {
      best_distance = distance;
      best = std::string(key.path);
    }
  }
  return best;
}

} // namespace ralph::config_detail
