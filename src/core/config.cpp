// Configuration front ends: TOML files (the only place toml++ is included), environment
// variables and single key=value settings, all validated through the key table.
#include "ralph/core/config.h"

#include "config_keys.h"

#include "ralph/core/json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace ralph {
namespace {

using config_detail::Key;
using config_detail::Value;

Error config_error(std::string message, const std::string& file, int line, int column) {
  Error error;
  error.kind = ErrorKind::config;
  error.message = std::move(message);
  error.file = file;
  error.line = line;
  error.column = column;
  return error;
}

std::string where(const std::string& source, const toml::source_region& region) {
  if (region.begin.line == 0) {
    return source;
  }
  return fmt::format("{}:{}", source, region.begin.line);
}

std::optional<Value> toml_value(const toml::node& node) {
  if (const auto* array = node.as_array()) {
    std::vector<std::string> items;
    for (const auto& item : *array) {
      const auto* text = item.as_string();
      if (text == nullptr) {
        return std::nullopt;
      }
      items.push_back(text->get());
    }
    return Value(std::move(items));
  }
  if (const auto* v = node.as_boolean()) {
    return Value(v->get());
  }
  if (const auto* v = node.as_integer()) {
    return Value(v->get());
  }
  if (const auto* v = node.as_floating_point()) {
    return Value(v->get());
  }
  if (const auto* v = node.as_string()) {
    return Value(v->get());
  }
  return std::nullopt;
}

std::string_view toml_kind(const toml::node& node) {
  switch (node.type()) {
  case toml::node_type::array:
    return "an array";
  case toml::node_type::table:
    return "a table";
  case toml::node_type::date:
  case toml::node_type::time:
  case toml::node_type::date_time:
    return "a date or time";
  default:
    return "a value";
  }
}

std::string unknown_key_message(const std::string& place, const std::string& path) {
  const std::string suggestion = config_detail::closest_key(path);
  if (suggestion.empty()) {
    return fmt::format("{}: unknown key '{}' (the README's Configuration section lists every key)",
                       place, path);
  }
  return fmt::format("{}: unknown key '{}'; did you mean '{}'?", place, path, suggestion);
}

// [prices."provider/model"] tables: model names hold dots and slashes, so they are not keys.
Result<void> apply_prices(Config& config, const toml::table& prices, const std::string& source) {
  for (const auto& [model, node] : prices) {
    const auto* table = node.as_table();
    const int line = static_cast<int>(model.source().begin.line);
    if (table == nullptr) {
      return tl::unexpected(config_error(
          fmt::format("{}: prices.\"{}\": expected a table with input and output (USD per "
                      "million tokens)",
                      where(source, model.source()), model.str()),
          source, line, 0));
    }
    PriceSettings price;
    for (const auto& [field, value] : *table) {
      const auto number = value.value<double>();
      const bool known = field.str() == "input" || field.str() == "output";
      if (!known || !number || *number < 0) {
        return tl::unexpected(config_error(
            fmt::format("{}: prices.\"{}\".{}: expected input or output, a number >= 0 (USD per "
                        "million tokens)",
                        where(source, field.source()), model.str(), field.str()),
            source, static_cast<int>(field.source().begin.line), 0));
      }
      (field.str() == "input" ? price.input : price.output) = *number;
    }
    config.prices[std::string(model.str())] = price;
  }
  return {};
}

Result<void> apply_table(Config& config, const toml::table& table, const std::string& prefix,
                         const std::string& source) {
  for (const auto& [name, node] : table) {
    if (prefix.empty() && name.str() == "prices" && node.is_table()) {
      if (auto applied = apply_prices(config, *node.as_table(), source); !applied) {
        return applied;
      }
      continue;
    }
    const std::string path =
        prefix.empty() ? std::string(name.str()) : fmt::format("{}.{}", prefix, name.str());
    const auto& region = node.source().begin.line != 0 ? node.source() : name.source();
    const int line = static_cast<int>(region.begin.line);
    const int column = static_cast<int>(region.begin.column);
    const Key* key = config_detail::find_key(path);
    if (key == nullptr) {
      if (const auto* sub = node.as_table()) {
        // A section is known when some key lives under it.
        const bool known_section = std::any_of(
            config_detail::keys().begin(), config_detail::keys().end(),
            [&](const Key& k) { return k.path.substr(0, path.size() + 1) == path + "."; });
        if (known_section) {
          if (auto applied = apply_table(config, *sub, path, source); !applied) {
            return applied;
          }
          continue;
        }
      }
      return tl::unexpected(
          config_error(unknown_key_message(where(source, region), path), source, line, column));
    }
    const auto value = toml_value(node);
    if (!value) {
      return tl::unexpected(
          config_error(fmt::format("{}: {}: expected {}, got {}", where(source, region), path,
                                   config_detail::expected(*key), toml_kind(node)),
                       source, line, column));
    }
    if (auto problem = config_detail::assign(config, *key, *value)) {
      return tl::unexpected(config_error(
          fmt::format("{}: {}: {}", where(source, region), path, *problem), source, line, column));
    }
  }
  return {};
}

std::string env_name(std::string_view path) {
  std::string name = "RALPH_";
  for (char c : path) {
    name.push_back(c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return name;
}

} // namespace

Result<void> apply_config_toml(Config& config, std::string_view text, const std::string& source) {
  toml::table table;
  try {
    table = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    return tl::unexpected(config_error(fmt::format("{}:{}:{}: TOML syntax error: {}", source,
                                                   begin.line, begin.column, e.description()),
                                       source, static_cast<int>(begin.line),
                                       static_cast<int>(begin.column)));
  }
  return apply_table(config, table, "", source);
}

Result<void> apply_config_file(Config& config, const std::filesystem::path& file, bool optional) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (optional && !std::filesystem::exists(file, ec)) {
      return {};
    }
    return tl::unexpected(config_error(
        fmt::format("{}: cannot read the configuration file", file.string()), file.string(), 0, 0));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return apply_config_toml(config, text.str(), file.string());
}

Result<void> apply_environment(Config& config,
                               const std::function<const char*(const char*)>& lookup) {
  struct Alias {
    const char* variable;
    const char* key;
  };
  static constexpr Alias k_aliases[] = {{"RALPH_MAX_STEPS", "agent.max_steps"}};
  const auto apply = [&](const std::string& variable, std::string_view key) -> Result<void> {
    const char* text = lookup(variable.c_str());
    if (text == nullptr) {
      return {};
    }
    return set_config_value(config, key, text, "environment variable " + variable);
  };
  for (const Alias& alias : k_aliases) {
    if (auto applied = apply(alias.variable, alias.key); !applied) {
      return applied;
    }
  }
  // The canonical names come last so they win over an alias set at the same time.
  for (const Key& key : config_detail::keys()) {
    if (auto applied = apply(env_name(key.path), key.path); !applied) {
      return applied;
    }
  }
  return {};
}

Result<void> set_config_value(Config& config, std::string_view key, std::string_view text,
                              const std::string& source) {
  const Key* entry = config_detail::find_key(key);
  if (entry == nullptr) {
    return tl::unexpected(
        config_error(unknown_key_message(source, std::string(key)), source, 0, 0));
  }
  const auto value = config_detail::parse_text(*entry, text);
  if (!value) {
    return tl::unexpected(config_error(fmt::format("{}: {}: expected {}, got \"{}\"", source, key,
                                                   config_detail::expected(*entry), text),
                                       source, 0, 0));
  }
  if (auto problem = config_detail::assign(config, *entry, *value)) {
    return tl::unexpected(
        config_error(fmt::format("{}: {}: {}", source, key, *problem), source, 0, 0));
  }
  return {};
}

Result<void> append_config_value(Config& config, std::string_view key, std::string_view text,
                                 const std::string& source) {
  const Key* entry = config_detail::find_key(key);
  if (entry == nullptr || entry->kind != config_detail::ValueKind::string_list) {
    return set_config_value(config, key, text, source);
  }
  entry->list(config).emplace_back(text);
  return {};
}

std::string config_to_json(const Config& config) {
  nlohmann::json out = nlohmann::json::object();
  for (const Key& key : config_detail::keys()) {
    const auto value = key.get(config);
    if (!value) {
      continue;
    }
    std::visit([&](const auto& v) { out[std::string(key.path)] = v; }, *value);
  }
  nlohmann::json prices = nlohmann::json::object();
  for (const auto& [model, price] : config.prices) {
    prices[model] = {{"input", price.input}, {"output", price.output}};
  }
  out["prices"] = std::move(prices);
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<void> apply_config_json(Config& config, std::string_view json, const std::string& source) {
  const auto parsed = parse_json(json, source);
  if (!parsed) {
    return tl::unexpected(parsed.error());
  }
  if (!parsed->is_object()) {
    return fail(ErrorKind::config, fmt::format("{}: expected a JSON object", source));
  }
  for (const auto& [name, item] : parsed->items()) {
    if (name == "prices" && item.is_object()) {
      for (const auto& [model, price] : item.items()) {
        config.prices[model] = {price.value("input", 0.0), price.value("output", 0.0)};
      }
      continue;
    }
    const Key* key = config_detail::find_key(name);
    if (key == nullptr) {
      return tl::unexpected(config_error(unknown_key_message(source, name), source, 0, 0));
    }
    std::optional<Value> value;
    if (item.is_boolean()) {
      value = item.get<bool>();
    } else if (item.is_number_integer()) {
      value = item.get<std::int64_t>();
    } else if (item.is_number()) {
      value = item.get<double>();
    } else if (item.is_string()) {
      value = item.get<std::string>();
    } else if (item.is_array() &&
               std::all_of(item.begin(), item.end(), [](const auto& x) { return x.is_string(); })) {
      value = item.get<std::vector<std::string>>();
    }
    if (!value) {
      return fail(ErrorKind::config,
                  fmt::format("{}: {}: expected {}", source, name, config_detail::expected(*key)));
    }
    if (auto problem = config_detail::assign(config, *key, *value)) {
      return tl::unexpected(
          config_error(fmt::format("{}: {}: {}", source, name, *problem), source, 0, 0));
    }
  }
  return {};
}

std::vector<std::string> describe_config_keys() {
  std::vector<std::string> lines;
  for (const Key& key : config_detail::keys()) {
    lines.push_back(
        fmt::format("{}: {} (env {})", key.path, config_detail::expected(key), env_name(key.path)));
  }
  return lines;
}

} // namespace ralph
