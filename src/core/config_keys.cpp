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

// Every key reads and writes its field through one accessor. The getters call it on a Config
// they only read: the const_cast never leads to a write.
template <typename T> using Access = T& (*)(Config&);

template <typename T> T& field(Access<T> access, const Config& config) {
  return access(const_cast<Config&>(config));
}

Key make_key(std::string_view path, ValueKind kind, double min = 0, double max = 0) {
  Key key;
  key.path = path;
  key.kind = kind;
  key.min = min;
  key.max = max;
  return key;
}

Key string_key(std::string_view path, Access<std::string> access) {
  Key key = make_key(path, ValueKind::string);
  key.set = [access](Config& c, const Value& v) { access(c) = as_string(v); };
  key.get = [access](const Config& c) -> std::optional<Value> { return field(access, c); };
  return key;
}

// A choice written as one of the enum's names.
template <typename E, std::size_t N>
Key enum_key(std::string_view path, const EnumName<E> (&names)[N],
             std::type_identity_t<Access<E>> access) {
  Key key = make_key(path, ValueKind::string);
  for (const EnumName<E>& entry : names) {
    key.choices.emplace_back(entry.name);
  }
  // `assign` has checked the name against `choices`.
  key.set = [access, &names](Config& c, const Value& v) {
    access(c) = value_of(names, as_string(v)).value_or(names[0].value);
  };
  key.get = [access, &names](const Config& c) -> std::optional<Value> {
    return std::string(name_of(names, field(access, c)));
  };
  return key;
}

// An integer in files; `T` in the Config (an int, a size, seconds, bytes written as MiB...),
// converted by `from_int` and `to_int`.
template <typename T, typename From, typename To>
Key integer_key(std::string_view path, double min, double max, Access<T> access, From from_int,
                To to_int) {
  Key key = make_key(path, ValueKind::integer, min, max);
  key.set = [access, from_int](Config& c, const Value& v) { access(c) = from_int(as_int(v)); };
  key.get = [access, to_int](const Config& c) -> std::optional<Value> {
    return static_cast<std::int64_t>(to_int(field(access, c)));
  };
  return key;
}

template <typename Int>
Key int_key(std::string_view path, double min, double max, Access<Int> access) {
  return integer_key(
      path, min, max, access, [](std::int64_t v) { return static_cast<Int>(v); },
      [](Int v) { return static_cast<std::int64_t>(v); });
}

Key size_key(std::string_view path, double min, double max, Access<std::size_t> access) {
  return int_key<std::size_t>(path, min, max, access);
}

// Seconds in files and records (fractions allowed: 0.5), or a duration as text ("1.5m").
Key seconds_key(std::string_view path, double min, double max, Access<Duration> access) {
  Key key = make_key(path, ValueKind::number, min, max);
  key.unit = Unit::seconds;
  key.set = [access](Config& c, const Value& v) {
    access(c) = Duration(std::llround(as_number(v) * 1000.0));
  };
  // Whole seconds stay integers, so records written before fractions were allowed read the same.
  key.get = [access](const Config& c) -> std::optional<Value> {
    const auto ms = field(access, c).count();
    if (ms % 1000 == 0) {
      return static_cast<std::int64_t>(ms / 1000);
    }
    return static_cast<double>(ms) / 1000.0;
  };
  return key;
}

Key with_unit(Key key, Unit unit) {
  key.unit = unit;
  return key;
}

Key mebibytes_key(std::string_view path, double min, double max, Access<std::size_t> access) {
  return integer_key(
      path, min, max, access, [](std::int64_t v) { return static_cast<std::size_t>(v) << 20U; },
      [](std::size_t bytes) { return static_cast<std::int64_t>(bytes >> 20U); });
}

Key bool_key(std::string_view path, Access<bool> access) {
  Key key = make_key(path, ValueKind::boolean);
  key.set = [access](Config& c, const Value& v) { access(c) = as_bool(v); };
  key.get = [access](const Config& c) -> std::optional<Value> { return field(access, c); };
  return key;
}

Key number_key(std::string_view path, double min, double max, Access<double> access) {
  Key key = make_key(path, ValueKind::number, min, max);
  key.set = [access](Config& c, const Value& v) { access(c) = as_number(v); };
  key.get = [access](const Config& c) -> std::optional<Value> { return field(access, c); };
  return key;
}

Key optional_number_key(std::string_view path, double min, double max,
                        Access<std::optional<double>> access) {
  Key key = make_key(path, ValueKind::number, min, max);
  key.set = [access](Config& c, const Value& v) { access(c) = as_number(v); };
  key.get = [access](const Config& c) -> std::optional<Value> {
    const auto& value = field(access, c);
    return value ? std::optional<Value>(*value) : std::nullopt;
  };
  return key;
}

Key list_key(std::string_view path, Access<std::vector<std::string>> access) {
  Key key = make_key(path, ValueKind::string_list);
  key.list = access;
  key.set = [access](Config& c, const Value& v) {
    access(c) = std::get<std::vector<std::string>>(v);
  };
  key.get = [access](const Config& c) -> std::optional<Value> { return field(access, c); };
  return key;
}

// "agent" names the agent's own model; anything else a PROVIDER/MODEL (checked when it is used).
Key judge_model_key() {
  constexpr std::string_view k_agent = "agent";
  Key key = make_key("judge.model", ValueKind::string);
  key.set = [k_agent](Config& c, const Value& v) {
    const std::string& text = as_string(v);
    c.judge.on_agent_model = text == k_agent;
    c.judge.model = c.judge.on_agent_model ? std::string() : text;
  };
  key.get = [k_agent](const Config& c) -> std::optional<Value> {
    return c.judge.on_agent_model ? std::string(k_agent) : c.judge.model;
  };
  return key;
}

Key prices_key() {
  Key key = make_key("prices", ValueKind::price_table);
  // Each file adds its models' prices to those of the files before it.
  key.set = [](Config& c, const Value& v) {
    for (const auto& [model, price] : std::get<PriceTable>(v)) {
      c.prices[model] = price;
    }
  };
  key.get = [](const Config& c) -> std::optional<Value> { return c.prices; };
  return key;
}

std::vector<Key> make_keys() {
  constexpr double k_max_int = 1e9;
  constexpr double k_week = 86400.0 * 7;
  using S = std::string;
  using L = std::vector<std::string>;
  using I64 = std::int64_t;
  using Z = std::size_t;
  return {
      string_key("model", [](Config& c) -> S& { return c.model; }),
      string_key("base_url", [](Config& c) -> S& { return c.base_url; }),
      int_key<int>("agent.max_steps", 1, 100000,
                   [](Config& c) -> int& { return c.agent.max_steps; }),
      with_unit(int_key<int>("agent.max_tokens", 1, 10'000'000,
                             [](Config& c) -> int& { return c.agent.max_tokens; }),
                Unit::tokens),
      optional_number_key("agent.temperature", 0, 2,
                          [](Config& c) -> std::optional<double>& { return c.agent.temperature; }),
      bool_key("agent.stream", [](Config& c) -> bool& { return c.agent.stream; }),
      string_key("agent.system_prompt", [](Config& c) -> S& { return c.agent.system_prompt; }),
      string_key("agent.cli", [](Config& c) -> S& { return c.agent.cli; }),
      string_key("agent.command", [](Config& c) -> S& { return c.agent.command; }),
      string_key("agent.model", [](Config& c) -> S& { return c.agent.model; }),
      list_key("agent.args", [](Config& c) -> L& { return c.agent.args; }),
      seconds_key("agent.timeout", 1, k_week,
                  [](Config& c) -> Duration& { return c.agent.timeout; }),
      seconds_key("agent.idle_timeout", 1, k_week,
                  [](Config& c) -> Duration& { return c.agent.idle_timeout; }),
      seconds_key("tools.shell_timeout", 1, 86400,
                  [](Config& c) -> Duration& { return c.tools.shell_timeout; }),
      size_key("tools.output_limit", 1000, k_max_int,
               [](Config& c) -> Z& { return c.tools.output_limit; }),
      seconds_key("http.connect_timeout", 1, 3600,
                  [](Config& c) -> Duration& { return c.http.connect_timeout; }),
      seconds_key("http.idle_timeout", 1, 86400,
                  [](Config& c) -> Duration& { return c.http.idle_timeout; }),
      int_key<int>("http.max_retries", 0, 20, [](Config& c) -> int& { return c.http.max_retries; }),
      string_key("store.path", [](Config& c) -> S& { return c.store.path; }),
      string_key("store.url", [](Config& c) -> S& { return c.store.url; }),
      bool_key("store.enabled", [](Config& c) -> bool& { return c.store.enabled; }),
      seconds_key("store.retry_seconds", 0, k_week,
                  [](Config& c) -> Duration& { return c.store.retry; }),
      bool_key("loop.enabled", [](Config& c) -> bool& { return c.loop.enabled; }),
      int_key<int>("loop.max_iterations", 1, 100000,
                   [](Config& c) -> int& { return c.loop.max_iterations; }),
      enum_key("loop.feedback", k_feedback_mode_names,
               [](Config& c) -> FeedbackMode& { return c.loop.feedback; }),
      enum_key("loop.trigger", k_trigger_mode_names,
               [](Config& c) -> TriggerMode& { return c.loop.trigger.mode; }),
      list_key("loop.keywords", [](Config& c) -> L& { return c.loop.trigger.keywords; }),
      bool_key("loop.heartbeat", [](Config& c) -> bool& { return c.loop.heartbeat; }),
      bool_key("loop.verify_heartbeat",
               [](Config& c) -> bool& { return c.loop.trigger.verify_heartbeat; }),
      seconds_key("display.progress_interval", 0, 86400,
                  [](Config& c) -> Duration& { return c.display.progress_interval; }),
      bool_key("loop.verify_final", [](Config& c) -> bool& { return c.loop.verify_final; }),
      int_key<int>("loop.stall_after", 2, 1000,
                   [](Config& c) -> int& { return c.loop.stall_after; }),
      size_key("loop.runtime_summary_chars", 200, k_max_int,
               [](Config& c) -> Z& { return c.loop.runtime_summary_chars; }),
      with_unit(int_key<I64>("budget.max_tokens", 0, 1e15,
                             [](Config& c) -> I64& { return c.budget.max_tokens; }),
                Unit::tokens),
      with_unit(number_key("budget.max_cost_usd", 0, 1e9,
                           [](Config& c) -> double& { return c.budget.max_cost_usd; }),
                Unit::usd),
      seconds_key("budget.max_time", 0, 1e9,
                  [](Config& c) -> Duration& { return c.budget.max_time; }),
      list_key("verify.commands", [](Config& c) -> L& { return c.verify.commands; }),
      list_key("verify.exec", [](Config& c) -> L& { return c.verify.exec; }),
      seconds_key("verify.command_timeout", 1, k_week,
                  [](Config& c) -> Duration& { return c.verify.command_timeout; }),
      seconds_key("verify.exec_timeout", 1, k_week,
                  [](Config& c) -> Duration& { return c.verify.exec_timeout; }),
      size_key("verify.excerpt_chars", 200, k_max_int,
               [](Config& c) -> Z& { return c.verify.excerpt_chars; }),
      int_key<int>("verify.runs", 1, 100, [](Config& c) -> int& { return c.verify.runs; }),
      int_key<int>("verify.quorum", 1, 100, [](Config& c) -> int& { return c.verify.quorum; }),
      enum_key("verify.command_policy", k_error_policy_names,
               [](Config& c) -> ErrorPolicy& { return c.verify.command_policy; }),
      list_key("verify.protect", [](Config& c) -> L& { return c.verify.protect; }),
      list_key("verify.junit", [](Config& c) -> L& { return c.verify.junit; }),
      judge_model_key(),
      string_key("judge.base_url", [](Config& c) -> S& { return c.judge.base_url; }),
      with_unit(int_key<int>("judge.max_tokens", 16, 100000,
                             [](Config& c) -> int& { return c.judge.max_tokens; }),
                Unit::tokens),
      seconds_key("judge.timeout", 1, 3600, [](Config& c) -> Duration& { return c.judge.timeout; }),
      size_key("judge.context_chars", 2000, k_max_int,
               [](Config& c) -> Z& { return c.judge.context_chars; }),
      size_key("judge.rules_chars", 0, k_max_int,
               [](Config& c) -> Z& { return c.judge.rules_chars; }),
      list_key("judge.rules_files", [](Config& c) -> L& { return c.judge.rules_files; }),
      enum_key("judge.policy", k_error_policy_names,
               [](Config& c) -> ErrorPolicy& { return c.judge.policy; }),
      bool_key("judge.structured", [](Config& c) -> bool& { return c.judge.structured; }),
      bool_key("evidence.enabled", [](Config& c) -> bool& { return c.evidence.enabled; }),
      string_key("evidence.marker", [](Config& c) -> S& { return c.evidence.marker; }),
      list_key("evidence.tools", [](Config& c) -> L& { return c.evidence.tools; }),
      list_key("evidence.commands", [](Config& c) -> L& { return c.evidence.commands; }),
      bool_key("evidence.require", [](Config& c) -> bool& { return c.evidence.require; }),
      string_key("evidence.instructions", [](Config& c) -> S& { return c.evidence.instructions; }),
      list_key("checks.must_match", [](Config& c) -> L& { return c.checks.must_match; }),
      list_key("checks.must_not_match", [](Config& c) -> L& { return c.checks.must_not_match; }),
      size_key("checks.min_chars", 0, k_max_int,
               [](Config& c) -> Z& { return c.checks.min_chars; }),
      size_key("checks.max_chars", 0, k_max_int,
               [](Config& c) -> Z& { return c.checks.max_chars; }),
      bool_key("checks.json", [](Config& c) -> bool& { return c.checks.json; }),
      string_key("checks.json_schema", [](Config& c) -> S& { return c.checks.json_schema; }),
      size_key("checks.min_bullets", 0, 10000,
               [](Config& c) -> Z& { return c.checks.min_bullets; }),
      size_key("checks.max_bullets", 0, 10000,
               [](Config& c) -> Z& { return c.checks.max_bullets; }),
      size_key("qa.min_bullets", 1, 1000, [](Config& c) -> Z& { return c.qa.min_bullets; }),
      size_key("qa.max_bullets", 1, 1000, [](Config& c) -> Z& { return c.qa.max_bullets; }),
      size_key("qa.min_quotes", 0, 1000, [](Config& c) -> Z& { return c.qa.min_quotes; }),
      size_key("qa.max_quotes", 1, 1000, [](Config& c) -> Z& { return c.qa.max_quotes; }),
      size_key("qa.max_quote_chars", 10, 100000,
               [](Config& c) -> Z& { return c.qa.max_quote_chars; }),
      size_key("qa.min_quote_words", 1, 1000, [](Config& c) -> Z& { return c.qa.min_quote_words; }),
      size_key("qa.min_quote_chars", 1, 100000,
               [](Config& c) -> Z& { return c.qa.min_quote_chars; }),
      enum_key("qa.match_level", k_match_level_names,
               [](Config& c) -> MatchLevel& { return c.qa.match_level; }),
      size_key("qa.window_chars", 0, 100000, [](Config& c) -> Z& { return c.qa.window_chars; }),
      int_key<int>("rlm.max_steps", 1, 100000, [](Config& c) -> int& { return c.rlm.max_steps; }),
      int_key<int>("rlm.max_sub_queries", 0, 100000,
                   [](Config& c) -> int& { return c.rlm.max_sub_queries; }),
      int_key<int>("rlm.concurrency", 1, 64, [](Config& c) -> int& { return c.rlm.concurrency; }),
      mebibytes_key("rlm.memory_mb", 16, 65536, [](Config& c) -> Z& { return c.rlm.memory_bytes; }),
      seconds_key("rlm.time_limit", 1, 86400,
                  [](Config& c) -> Duration& { return c.rlm.time_limit; }),
      size_key("rlm.output_chars", 100, k_max_int,
               [](Config& c) -> Z& { return c.rlm.output_chars; }),
      string_key("rlm.sub_model", [](Config& c) -> S& { return c.rlm.sub_model; }),
      with_unit(int_key<int>("rlm.sub_max_tokens", 16, 100000,
                             [](Config& c) -> int& { return c.rlm.sub_max_tokens; }),
                Unit::tokens),
      string_key("task.mem_file", [](Config& c) -> S& { return c.task.mem_file; }),
      size_key("task.memory_chars", 100, k_max_int,
               [](Config& c) -> Z& { return c.task.memory_chars; }),
      size_key("task.min_output_chars", 0, k_max_int,
               [](Config& c) -> Z& { return c.task.min_output_chars; }),
      size_key("task.min_memory_chars", 0, k_max_int,
               [](Config& c) -> Z& { return c.task.min_memory_chars; }),
      string_key("document.path", [](Config& c) -> S& { return c.document.path; }),
      enum_key("document.mode", k_document_mode_names,
               [](Config& c) -> DocumentMode& { return c.document.mode; }),
      prices_key(),
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
  // A lower bound of 0 on a measured quantity is a budget's "no limit".
  const auto range = [&key](std::string_view forms, std::string (*show_bound)(double)) {
    if (key.min == 0) {
      return fmt::format("{} (0: no limit)", forms);
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
    return "a list of strings";
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
  if (!key.choices.empty() &&
      std::find(key.choices.begin(), key.choices.end(), as_string(value)) == key.choices.end()) {
    return fmt::format("expected {}, got {}", expected(key), show(value));
  }
  key.set(config, value);
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
