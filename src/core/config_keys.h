#pragma once

// The table of configuration keys shared by the TOML, environment and flag front ends.

#include "ralph/core/config.h"
#include "ralph/core/setting_names.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ralph::config_detail {

enum class ValueKind { boolean, integer, number, string, string_list, price_table };

// What a number measures, for the forms its text may take and the words of its errors. Integers
// of every unit take counts ("200k", core/quantity.h).
enum class Unit { none, seconds, tokens, usd };

// A setting as the front ends read it: text in files, variables and flags becomes one of these,
// then the key turns it into its typed field.
using Value =
    std::variant<bool, std::int64_t, double, std::string, std::vector<std::string>, PriceTable>;

struct Key {
  std::string_view path; // "agent.max_steps"
  ValueKind kind = ValueKind::string;
  Unit unit = Unit::none; // seconds: a number key, written as a duration ("10m") or seconds
  double min = 0;         // inclusive bounds for integers and numbers
  double max = 0;
  std::string_view zero = "no limit";    // what 0 means, for a measured quantity whose min is 0
  std::vector<std::string_view> choices; // the only strings allowed, when not empty
  bool no_empty_items = false; // string_list keys of commands, files and globs: "" names nothing
  std::function<void(Config&, const Value&)> set;         // called with a value of `kind`, in range
  std::function<std::vector<std::string>&(Config&)> list; // string_list keys: the list itself
  std::function<std::optional<Value>(const Config&)> get; // nullopt: unset (no default)
  SettingNames names; // what the key does, and the flags and other names that set it
};

// The value as its kind holds it; the setters call these after `assign` has checked the kind.
inline std::int64_t as_int(const Value& v) {
  return std::get<std::int64_t>(v);
}
inline const std::string& as_string(const Value& v) {
  return std::get<std::string>(v);
}
inline bool as_bool(const Value& v) {
  return std::get<bool>(v);
}
inline double as_number(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    return static_cast<double>(*i);
  }
  return std::get<double>(v);
}

// The rows of the table, each with its names (config_key_table.cpp); keys() holds them, their
// names' `key` fields filled in.
std::vector<Key> make_keys();

const std::vector<Key>& keys();
const Key* find_key(std::string_view path);

// "an integer from 1 to 100000", "true or false", "a duration like 90s, 1.5m, 2h (0: no limit)"
std::string expected(const Key& key);

// Checks kind and range, then sets. Integers are accepted where numbers are expected, and text
// where either is (parsed as by parse_text: "10m", "200k"). On failure returns the reason
// ("expected ..., got ...").
std::optional<std::string> assign(Config& config, const Key& key, const Value& value);

// What assign would refuse in a value already of a kind (not text for a number), without setting
// anything; nullopt when it would set it.
std::optional<std::string> check_value(const Key& key, const Value& value);

// Parses `text` as the key's kind (environment variables and flags are text); a list takes a
// JSON array of strings or one item. Prices are set in files only: nullopt.
std::optional<Value> parse_text(const Key& key, std::string_view text);

// A price table from its JSON form ({"provider/model": {"input": N, "output": N}}), as files and
// session records write it; on failure the reason, naming the model and field.
std::variant<PriceTable, std::string> parse_prices(const nlohmann::json& table);

// Applies `[agents.NAME]` tables in their JSON form ({"NAME": {"command": [...], ...}}) over
// `into`: the fields given replace the preset's, a new name adds a preset. On failure the reason,
// naming the preset and field; `into` may then be partly updated.
std::optional<std::string> apply_agent_presets(AgentPresets& into, const nlohmann::json& table);
// The presets in that JSON form.
nlohmann::json agent_presets_json(const AgentPresets& presets);

// One `[[notify]]` entry from its JSON form ({"url": ..., "events": [...], ...}); on failure the
// field at fault ("" for the entry as a whole) and the reason.
struct NotifyProblem {
  std::string field;
  std::string message;
};
std::variant<NotifyTarget, NotifyProblem> parse_notify_target(const nlohmann::json& fields);

// Whether `name` can name an environment variable (letters, digits, `_`; no digit first).
bool is_variable_name(std::string_view name);
// `value` as a list of strings, or nullopt when it is not an array of strings only.
std::optional<std::vector<std::string>> json_strings(const nlohmann::json& value);

// The known key closest to `path`, for "did you mean" hints; empty when none is close.
std::string closest_key(std::string_view path);

} // namespace ralph::config_detail
