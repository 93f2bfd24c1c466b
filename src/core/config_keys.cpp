// How the key table's values are checked, parsed and described for the front ends.
#include "config_keys.h"

#include "ralph/core/json.h"
#include "ralph/core/quantity.h"
#include "ralph/core/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <type_traits>

namespace ralph::config_detail {
namespace {

std::string_view kind_name(const Value& value) {
  switch (value.index()) {
  case 0:
    return "a boolean";
  case 1:
    return "an integer";
  case 2:
    return "a number";
  case 3:
    return "a string";
  case 4:
    return "a list";
  default:
    return "a table";
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
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          return fmt::format("[{}]", fmt::join(v, ", "));
        } else if constexpr (std::is_same_v<T, PriceTable>) {
          return "a table of prices";
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

// A bound in seconds as a person writes it: "1s", "90s", "1h", "7d".
std::string seconds_text(double seconds) {
  const auto whole = static_cast<std::int64_t>(seconds);
  for (const auto& [size, unit] :
       {std::pair<std::int64_t, const char*>{86400, "d"}, {3600, "h"}, {60, "m"}}) {
    if (whole >= size && whole % size == 0) {
      return fmt::format("{}{}", whole / size, unit);
    }
  }
  return fmt::format("{}s", whole);
}

// A bound as a whole number ("1000000000", not "1e+09").
std::string count_text(double count) {
  return std::to_string(static_cast<std::int64_t>(count));
}

} // namespace

const std::vector<Key>& keys() {
  static const std::vector<Key> k_keys = [] {
    std::vector<Key> rows = make_keys();
    // Each key's names say which key they belong to, so a flag found alone knows what it sets.
    for (Key& key : rows) {
      key.names.key = key.path;
      for (SettingFlag& flag : key.names.flags) {
        flag.key = key.path;
      }
    }
    return rows;
  }();
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
  // A lower bound of 0 on a measured quantity is a budget's "no limit", or what the key says.
  const auto range = [&key](std::string_view forms, std::string (*show_bound)(double)) {
    if (key.min == 0) {
      return fmt::format("{} (0: {})", forms, key.zero);
    }
    return fmt::format("{}, from {} to {}", forms, show_bound(key.min), show_bound(key.max));
  };
  switch (key.unit) {
  case Unit::seconds:
    return range(k_duration_forms, seconds_text);
  case Unit::tokens:
    return range(k_count_forms, count_text);
  case Unit::usd:
    return range(k_usd_forms, count_text);
  case Unit::none:
    break;
  }
  switch (key.kind) {
  case ValueKind::boolean:
    return "true or false";
  case ValueKind::integer:
    return fmt::format("an integer from {} to {}", count_text(key.min), count_text(key.max));
  case ValueKind::number:
    return fmt::format("a number from {} to {}", key.min, key.max);
  case ValueKind::string:
    if (!key.choices.empty()) {
      return fmt::format("one of {}", fmt::join(key.choices, ", "));
    }
    return "a string";
  case ValueKind::string_list:
    return key.no_empty_items ? "a list of non-empty strings" : "a list of strings";
  case ValueKind::price_table:
    return "a table of models, each with input and output (USD per million tokens)";
  }
  return "a value";
}

std::optional<std::string> assign(Config& config, const Key& key, const Value& value) {
  const bool numeric = key.kind == ValueKind::integer || key.kind == ValueKind::number;
  if (const auto* text = std::get_if<std::string>(&value); numeric && text != nullptr) {
    const auto parsed = parse_text(key, *text);
    if (!parsed) {
      return fmt::format("expected {}, got \"{}\"", expected(key), *text);
    }
    return assign(config, key, *parsed);
  }
  if (auto problem = check_value(key, value)) {
    return problem;
  }
  key.set(config, value);
  return std::nullopt;
}

std::optional<std::string> check_value(const Key& key, const Value& value) {
  const bool kind_ok =
      (key.kind == ValueKind::boolean && std::holds_alternative<bool>(value)) ||
      (key.kind == ValueKind::integer && std::holds_alternative<std::int64_t>(value)) ||
      (key.kind == ValueKind::number &&
       (std::holds_alternative<double>(value) || std::holds_alternative<std::int64_t>(value))) ||
      (key.kind == ValueKind::string && std::holds_alternative<std::string>(value)) ||
      (key.kind == ValueKind::string_list &&
       std::holds_alternative<std::vector<std::string>>(value)) ||
      (key.kind == ValueKind::price_table && std::holds_alternative<PriceTable>(value));
  if (!kind_ok) {
    return fmt::format("expected {}, got {}", expected(key), kind_name(value));
  }
  if (key.kind == ValueKind::integer || key.kind == ValueKind::number) {
    const double number = as_number(value);
    if (!std::isfinite(number) || number < key.min || number > key.max) {
      return fmt::format("expected {}, got {}", expected(key), show(value));
    }
  }
  if (const auto* items = std::get_if<std::vector<std::string>>(&value);
      items != nullptr && key.no_empty_items &&
      std::any_of(items->begin(), items->end(),
                  [](const std::string& item) { return trim(item).empty(); })) {
    return fmt::format("expected {}, got an empty one", expected(key));
  }
  if (!key.choices.empty() &&
      std::find(key.choices.begin(), key.choices.end(), as_string(value)) == key.choices.end()) {
    return fmt::format("expected {}, got {}", expected(key), show(value));
  }
  return std::nullopt;
}

std::optional<Value> parse_text(const Key& key, std::string_view text) {
  switch (key.kind) {
  case ValueKind::string:
    return Value(std::string(text));
  case ValueKind::string_list: {
    if (text.empty() || text.front() != '[') {
      return Value(std::vector<std::string>{std::string(text)});
    }
    const auto array = parse_json(text, "list");
    if (!array || !array->is_array() ||
        !std::all_of(array->begin(), array->end(),
                     [](const auto& item) { return item.is_string(); })) {
      return std::nullopt;
    }
    return Value(array->get<std::vector<std::string>>());
  }
  case ValueKind::price_table:
    return std::nullopt;
  case ValueKind::boolean: {
    const std::string lower = to_lower_ascii(text);
    if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") {
      return Value(true);
    }
    if (lower == "false" || lower == "0" || lower == "no" || lower == "off") {
      return Value(false);
    }
    return std::nullopt;
  }
  case ValueKind::integer: {
    const auto count = parse_count(text);
    return count ? std::optional<Value>(*count) : std::nullopt;
  }
  case ValueKind::number: {
    if (key.unit == Unit::seconds) {
      const auto duration = parse_duration(text);
      return duration ? std::optional<Value>(static_cast<double>(duration->count()) / 1000.0)
                      : std::nullopt;
    }
    if (key.unit == Unit::usd) {
      const auto usd = parse_usd(text);
      return usd ? std::optional<Value>(*usd) : std::nullopt;
    }
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

std::variant<PriceTable, std::string> parse_prices(const nlohmann::json& table) {
  if (!table.is_object()) {
    return std::string("prices: expected a table of models");
  }
  PriceTable prices;
  for (const auto& [model, fields] : table.items()) {
    if (!fields.is_object()) {
      return fmt::format("prices.\"{}\": expected a table with input and output (USD per million "
                         "tokens)",
                         model);
    }
    Price price;
    for (const auto& [name, number] : fields.items()) {
      const bool known = name == "input" || name == "output";
      // nan and inf pass a `< 0` check, and a recorded configuration keeps them as null.
      if (!known || !number.is_number() || !std::isfinite(number.get<double>()) ||
          number.get<double>() < 0) {
        return fmt::format("prices.\"{}\".{}: expected input or output, a finite number >= 0 "
                           "(USD per million tokens)",
                           model, name);
      }
      (name == "input" ? price.input : price.output) = number.get<double>();
    }
    prices[model] = price;
  }
  return prices;
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
