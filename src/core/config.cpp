// Configuration front ends: TOML files (toml++ is included here and in toml_query.cpp), environment
// variables, single key=value settings and session records (JSON), all turned into the key
// table's values and checked by it.
#include "ralph/core/config.h"

#include "config_keys.h"
#include "toml_guard.h"

#include "ralph/core/json.h"
#include "ralph/core/mcp_config.h"
#include "ralph/core/setting_names.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/core/url.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

namespace ralph {
namespace {

using config_detail::Key;
using config_detail::Value;
using config_detail::ValueKind;

Error config_error(std::string message, const std::string& file, int line) {
  Error error;
  error.kind = ErrorKind::config;
  error.message = std::move(message);
  error.file = file;
  error.line = line;
  return error;
}

std::string where(const std::string& source, int line) {
  return line == 0 ? source : fmt::format("{}:{}", source, line);
}

std::string unknown_key_message(const std::string& place, const std::string& path) {
  const std::string suggestion = config_detail::closest_key(path);
  if (suggestion.empty()) {
    return fmt::format("{}: unknown key '{}' (docs/reference/configuration.md lists every key)",
                       place, path);
  }
  return fmt::format("{}: unknown key '{}'; did you mean '{}'?", place, path, suggestion);
}

// Checks `value` against `key` and sets it; the error says where (`place`) and which key.
Result<void> assign(Config& config, const Key& key, const Value& value, const std::string& place,
                    const std::string& source, int line) {
  if (auto problem = config_detail::assign(config, key, value)) {
    return tl::unexpected(
        config_error(fmt::format("{}: {}: {}", place, key.path, *problem), source, line));
  }
  return {};
}

// A price table as JSON, the one form prices are read in.
nlohmann::json toml_prices(const toml::table& table) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [model, node] : table) {
    nlohmann::json& fields = out[std::string(model.str())];
    const auto* prices = node.as_table();
    if (prices == nullptr) {
      fields = nullptr;
      continue;
    }
    fields = nlohmann::json::object();
    for (const auto& [name, number] : *prices) {
      const auto value = number.value<double>();
      fields[std::string(name.str())] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
    }
  }
  return out;
}

// A TOML value in its JSON form (dates as their text), for the tables read as JSON.
nlohmann::json toml_json(const toml::node& node) {
  if (const auto* table = node.as_table()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, item] : *table) {
      out[std::string(name.str())] = toml_json(item);
    }
    return out;
  }
  if (const auto* array = node.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : *array) {
      out.push_back(toml_json(item));
    }
    return out;
  }
  if (const auto* text = node.as_string()) {
    return text->get();
  }
  if (const auto* flag = node.as_boolean()) {
    return flag->get();
  }
  if (const auto* integer = node.as_integer()) {
    return integer->get();
  }
  if (const auto* number = node.as_floating_point()) {
    return number->get();
  }
  return nullptr;
}

constexpr std::string_view k_agents_table = "agents";
constexpr std::string_view k_notify_table = "notify";
constexpr std::string_view k_mcp_servers_table = "mcp.servers";

int line_of(const toml::node& node) {
  return static_cast<int>(node.source().begin.line);
}

// `[[notify]]` entries, added to those of the files read before; a mistake names the entry's
// field and its line.
Result<void> apply_notify(Config& config, const toml::node& node, const std::string& source,
                          int line) {
  const auto* entries = node.as_array();
  if (entries == nullptr || !entries->is_array_of_tables()) {
    return tl::unexpected(config_error(
        fmt::format("{}: notify: expected [[notify]] entries (an array of tables), each with url "
                    "or command",
                    where(source, line)),
        source, line));
  }
  for (const auto& entry : *entries) {
    const auto& table = *entry.as_table();
    const int entry_line = line_of(table) != 0 ? line_of(table) : line;
    auto parsed = config_detail::parse_notify_target(toml_json(table));
    if (auto* problem = std::get_if<config_detail::NotifyProblem>(&parsed)) {
      const toml::node* field = problem->field.empty() ? nullptr : table.get(problem->field);
      const int at = field != nullptr && line_of(*field) != 0 ? line_of(*field) : entry_line;
      const std::string name =
          problem->field.empty() ? std::string("notify") : "notify." + problem->field;
      return tl::unexpected(config_error(
          fmt::format("{}: {}: {}", where(source, at), name, problem->message), source, at));
    }
    auto target = std::get<NotifyTarget>(std::move(parsed));
    target.origin = where(source, entry_line);
    config.notify.push_back(std::move(target));
  }
  return {};
}

std::string mcp_problem_text(const McpConfigProblem& problem) {
  std::string name = "mcp.servers";
  if (!problem.server.empty()) {
    name += "." + problem.server;
  }
  if (!problem.field.empty()) {
    name += "." + problem.field;
  }
  return fmt::format("{}: {}", name, problem.message);
}

// `[mcp.servers.NAME]` tables, each named with its own line.
Result<void> apply_mcp_table(Config& config, const toml::node& node, const std::string& source,
                             int line) {
  const auto* servers = node.as_table();
  if (servers == nullptr) {
    return tl::unexpected(config_error(
        fmt::format("{}: mcp.servers: expected tables [mcp.servers.NAME], each with command or url",
                    where(source, line)),
        source, line));
  }
  // toml++ keeps a table's keys sorted: the order declared is the order of their lines.
  std::vector<std::pair<int, std::string>> order;
  for (const auto& [name, server] : *servers) {
    order.emplace_back(line_of(server) != 0 ? line_of(server) : line, std::string(name.str()));
  }
  std::sort(order.begin(), order.end());
  for (const auto& [at, name] : order) {
    nlohmann::json one = nlohmann::json::object();
    one[name] = toml_json(*servers->get(name));
    if (auto problem = apply_mcp_servers(config.mcp, one, where(source, at))) {
      return tl::unexpected(config_error(
          fmt::format("{}: {}", where(source, at), mcp_problem_text(*problem)), source, at));
    }
  }
  return {};
}

// The node as a value of `key`'s kind, or why not.
std::variant<Value, std::string> toml_value(const Key& key, const toml::node& node) {
  if (key.kind == ValueKind::price_table) {
    if (const auto* table = node.as_table()) {
      auto prices = config_detail::parse_prices(toml_prices(*table));
      if (auto* problem = std::get_if<std::string>(&prices)) {
        return std::move(*problem);
      }
      return Value(std::get<PriceTable>(std::move(prices)));
    }
  } else if (const auto* array = node.as_array()) {
    std::vector<std::string> items;
    for (const auto& item : *array) {
      const auto* text = item.as_string();
      if (text == nullptr) {
        return fmt::format("{}: expected {}, got a list with other items", key.path,
                           config_detail::expected(key));
      }
      items.push_back(text->get());
    }
    return Value(std::move(items));
  } else if (const auto* flag = node.as_boolean()) {
    return Value(flag->get());
  } else if (const auto* integer = node.as_integer()) {
    return Value(integer->get());
  } else if (const auto* number = node.as_floating_point()) {
    return Value(number->get());
  } else if (const auto* text = node.as_string()) {
    return Value(text->get());
  }
  const bool date = node.is_date() || node.is_time() || node.is_date_time();
  return fmt::format("{}: expected {}, got {}", key.path, config_detail::expected(key),
                     node.is_table() ? "a table"
                     : date          ? "a date or time"
                                     : "a value");
}

bool is_section(const std::string& path) {
  return std::any_of(config_detail::keys().begin(), config_detail::keys().end(),
                     [&](const Key& k) { return k.path.substr(0, path.size() + 1) == path + "."; });
}

Result<void> apply_table(Config& config, const toml::table& table, const std::string& prefix,
                         const std::string& source) {
  for (const auto& [name, node] : table) {
    const std::string path =
        prefix.empty() ? std::string(name.str()) : fmt::format("{}.{}", prefix, name.str());
    const auto& region = node.source().begin.line != 0 ? node.source() : name.source();
    const int line = static_cast<int>(region.begin.line);
    if (path == k_agents_table) {
      if (auto problem = config_detail::apply_agent_presets(config.agents, toml_json(node))) {
        return tl::unexpected(
            config_error(fmt::format("{}: {}", where(source, line), *problem), source, line));
      }
      continue;
    }
    if (path == k_notify_table) {
      TRY(apply_notify(config, node, source, line));
      continue;
    }
    if (path == k_mcp_servers_table) {
      TRY(apply_mcp_table(config, node, source, line));
      continue;
    }
    const Key* key = config_detail::find_key(path);
    if (key == nullptr) {
      if (const auto* sub = node.as_table(); sub != nullptr && is_section(path)) {
        TRY(apply_table(config, *sub, path, source));
        continue;
      }
      return tl::unexpected(
          config_error(unknown_key_message(where(source, line), path), source, line));
    }
    auto value = toml_value(*key, node);
    if (auto* problem = std::get_if<std::string>(&value)) {
      return tl::unexpected(
          config_error(fmt::format("{}: {}", where(source, line), *problem), source, line));
    }
    TRY(assign(config, *key, std::get<Value>(value), where(source, line), source, line));
  }
  return {};
}

// A JSON member as a value (prices aside: apply_config_json reads them), or nullopt when it is
// none.
std::optional<Value> json_value(const nlohmann::json& item) {
  switch (item.type()) {
  case nlohmann::json::value_t::boolean:
    return item.get<bool>();
  case nlohmann::json::value_t::number_integer:
  case nlohmann::json::value_t::number_unsigned:
    return item.get<std::int64_t>();
  case nlohmann::json::value_t::number_float:
    return item.get<double>();
  case nlohmann::json::value_t::string:
    return item.get<std::string>();
  case nlohmann::json::value_t::array:
    if (std::all_of(item.begin(), item.end(), [](const auto& x) { return x.is_string(); })) {
      return item.get<std::vector<std::string>>();
    }
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

} // namespace

Result<void> apply_config_toml(Config& config, std::string_view text, const std::string& source) {
  if (const auto hazard = config_detail::find_toml_hazard(text)) {
    return tl::unexpected(config_error(
        fmt::format("{}:{}:{}: {}", source, hazard->line, hazard->column, hazard->message), source,
        static_cast<int>(hazard->line)));
  }
  toml::table table;
  try {
    table = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    return tl::unexpected(config_error(fmt::format("{}:{}:{}: TOML syntax error: {}", source,
                                                   begin.line, begin.column, e.description()),
                                       source, static_cast<int>(begin.line)));
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
        fmt::format("{}: cannot read the configuration file", file.string()), file.string(), 0));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return apply_config_toml(config, text.str(), file.string());
}

Result<void> apply_environment(Config& config,
                               const std::function<const char*(const char*)>& lookup) {
  const auto apply = [&](const std::string& variable, std::string_view key) -> Result<void> {
    const char* text = lookup(variable.c_str());
    if (text == nullptr) {
      return {};
    }
    return set_config_value(config, key, text, "environment variable " + variable);
  };
  for (const Key& key : config_detail::keys()) {
    if (!key.names.env_alias.empty()) {
      TRY(apply(std::string(key.names.env_alias), key.path));
    }
  }
  // The canonical names come last so they win over an alias set at the same time.
  for (const Key& key : config_detail::keys()) {
    if (key.kind != ValueKind::price_table) {
      TRY(apply(env_variable(key.path), key.path));
    }
  }
  return {};
}

Result<void> check_environment_names(const std::vector<std::string>& names) {
  // Not settings, and passed down to ralph's processes: the queue of `worker` and `batch`, and
  // what the test suite, .ci, scripts/ and bench/ set for themselves.
  static constexpr std::string_view k_other_ralph_variables[] = {"RALPH_QUEUE_URL",
                                                                 "RALPH_SERVE_TOKEN",
                                                                 "RALPH_AGENT_CLIS_DIR",
                                                                 "RALPH_REQUIRE_AGENT_CLIS",
                                                                 "RALPH_REQUIRE_POSTGRES",
                                                                 "RALPH_PG_FSYNC",
                                                                 "RALPH_PG_BIN",
                                                                 "RALPH_BENCH_PG_URL",
                                                                 "RALPH_BUILD",
                                                                 "RALPH_MCP_TESTS_DIR"};
  constexpr std::string_view k_prefix = "RALPH_";
  std::vector<std::string> known(std::begin(k_other_ralph_variables),
                                 std::end(k_other_ralph_variables));
  for (const Key& key : config_detail::keys()) {
    if (key.kind != ValueKind::price_table) {
      known.push_back(env_variable(key.path));
    }
    if (!key.names.env_alias.empty()) {
      known.emplace_back(key.names.env_alias);
    }
  }
  for (const std::string& name : names) {
    if (!name.starts_with(k_prefix) || std::find(known.begin(), known.end(), name) != known.end()) {
      continue;
    }
    // A typo, or a key's last words without its section (RALPH_MAX_ITERATIONS).
    std::vector<std::string> near{closest_name(name, known)};
    if (near.front().empty()) {
      near.clear();
      const std::string tail = "_" + name.substr(k_prefix.size());
      std::copy_if(known.begin(), known.end(), std::back_inserter(near),
                   [&tail](const std::string& known_name) { return known_name.ends_with(tail); });
    }
    const std::string place = "environment variable " + name;
    std::string message = fmt::format("{}: not a setting of ralph", place);
    if (near.size() == 1) {
      message += fmt::format("; did you mean {}?", near.front());
    } else if (!near.empty()) {
      message += fmt::format("; did you mean one of {}?", fmt::join(near, ", "));
    } else {
      message += " (docs/reference/configuration.md lists every variable)";
    }
    return tl::unexpected(config_error(message, place, 0));
  }
  return {};
}

Result<void> set_config_value(Config& config, std::string_view key, std::string_view text,
                              const std::string& source) {
  const Key* entry = config_detail::find_key(key);
  if (entry == nullptr) {
    return tl::unexpected(config_error(unknown_key_message(source, std::string(key)), source, 0));
  }
  const auto value = config_detail::parse_text(*entry, text);
  if (!value) {
    return tl::unexpected(config_error(fmt::format("{}: {}: expected {}, got \"{}\"", source, key,
                                                   config_detail::expected(*entry), text),
                                       source, 0));
  }
  return assign(config, *entry, *value, source, source, 0);
}

std::string config_key_expects(std::string_view key) {
  const Key* entry = config_detail::find_key(key);
  return entry == nullptr ? std::string() : config_detail::expected(*entry);
}

std::optional<std::string> check_config_text(std::string_view key, std::string_view text) {
  auto checked = Setting::check({.key = std::string(key), .value = std::string(text)});
  if (!checked) {
    return std::move(checked.error());
  }
  return std::nullopt;
}

Result<void> append_config_value(Config& config, std::string_view key, std::string_view text,
                                 const std::string& source) {
  const Key* entry = config_detail::find_key(key);
  if (entry == nullptr || entry->kind != ValueKind::string_list) {
    return set_config_value(config, key, text, source);
  }
  // Checked as a list of this one item, so an item the key refuses fails as in a file.
  if (auto problem =
          config_detail::check_value(*entry, std::vector<std::string>{std::string(text)})) {
    return tl::unexpected(
        config_error(fmt::format("{}: {}: {}", source, entry->path, *problem), source, 0));
  }
  entry->list(config).emplace_back(text);
  return {};
}

Result<void> apply_overrides(Config& config, const std::vector<ConfigOverride>& overrides) {
  for (const ConfigOverride& flag : overrides) {
    TRY(flag.append ? append_config_value(config, flag.key, flag.value, flag.flag)
                    : set_config_value(config, flag.key, flag.value, flag.flag));
  }
  return {};
}

struct Setting::Parsed {
  const Key* key = nullptr;
  Value value;
};

Setting::Setting(ConfigOverride text, std::shared_ptr<const Parsed> parsed)
    : m_text(std::move(text)), m_parsed(std::move(parsed)) {}

Result<Setting> Setting::parse(ConfigOverride text) {
  auto checked = check(text);
  if (checked) {
    return std::move(*checked);
  }
  // The words set_config_value uses (the closest key, what was given): it fails the same way.
  Config scratch;
  if (auto set = set_config_value(scratch, text.key, text.value, text.flag); !set) {
    return tl::unexpected(set.error());
  }
  return fail(ErrorKind::config, fmt::format("{}: {}: {}", text.flag, text.key, checked.error()));
}

tl::expected<Setting, std::string> Setting::check(ConfigOverride text) {
  const Key* entry = config_detail::find_key(text.key);
  if (entry == nullptr) {
    return tl::unexpected(fmt::format("unknown key '{}'", text.key));
  }
  auto parsed = std::make_shared<Parsed>();
  parsed->key = entry;
  if (text.append && entry->kind == ValueKind::string_list) {
    parsed->value = std::vector<std::string>{text.value};
    if (config_detail::check_value(*entry, parsed->value)) {
      return tl::unexpected("expected " + config_detail::expected(*entry));
    }
    return Setting(std::move(text), std::move(parsed));
  }
  auto value = config_detail::parse_text(*entry, text.value);
  // Checked against the key's kind and range now, so apply() cannot fail.
  if (!value || config_detail::check_value(*entry, *value)) {
    return tl::unexpected("expected " + config_detail::expected(*entry));
  }
  parsed->value = std::move(*value);
  return Setting(std::move(text), std::move(parsed));
}

void Setting::apply(Config& config) const {
  const Key& key = *m_parsed->key;
  if (m_text.append && key.kind == ValueKind::string_list) {
    auto& list = key.list(config);
    const auto& items = std::get<std::vector<std::string>>(m_parsed->value);
    list.insert(list.end(), items.begin(), items.end());
    return;
  }
  // Cannot fail: check() checked the same value.
  (void)config_detail::assign(config, key, m_parsed->value);
}

Result<std::vector<Setting>> parse_settings(const std::vector<ConfigOverride>& overrides) {
  std::vector<Setting> out;
  out.reserve(overrides.size());
  for (const ConfigOverride& text : overrides) {
    TRY_ASSIGN(Setting setting, Setting::parse(text));
    out.push_back(std::move(setting));
  }
  return out;
}

void apply_settings(Config& config, const std::vector<Setting>& settings) {
  for (const Setting& setting : settings) {
    setting.apply(config);
  }
}

std::string config_to_json(const Config& config) {
  nlohmann::json out = nlohmann::json::object();
  for (const Key& key : config_detail::keys()) {
    const auto value = key.get(config);
    if (!value) {
      continue;
    }
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          nlohmann::json& slot = out[std::string(key.path)];
          if constexpr (std::is_same_v<T, PriceTable>) {
            slot = nlohmann::json::object();
            for (const auto& [model, price] : v) {
              slot[model] = {{"input", price.input}, {"output", price.output}};
            }
          } else {
            slot = v;
          }
        },
        *value);
  }
  out[std::string(k_agents_table)] = config_detail::agent_presets_json(config.agents);
  out[std::string(k_mcp_servers_table)] = mcp_servers_json(config.mcp);
  // Stored with every session: a server's password must not be.
  out["store.url"] = url_without_password(config.store.url);
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<void> apply_config_json(Config& config, std::string_view json, const std::string& source) {
  TRY_ASSIGN(const nlohmann::json parsed, parse_json(json, source));
  if (!parsed.is_object()) {
    return fail(ErrorKind::config, fmt::format("{}: expected a JSON object", source));
  }
  for (const auto& [name, item] : parsed.items()) {
    if (name == k_agents_table) {
      if (auto problem = config_detail::apply_agent_presets(config.agents, item)) {
        return fail(ErrorKind::config, fmt::format("{}: {}", source, *problem));
      }
      continue;
    }
    if (name == k_mcp_servers_table) {
      if (auto problem = apply_mcp_servers(config.mcp, item, source)) {
        return fail(ErrorKind::config, fmt::format("{}: {}", source, mcp_problem_text(*problem)));
      }
      continue;
    }
    // A record's store is the one it was read from: its recorded URL, password masked, is not
    // one to connect to.
    if (name == "store.url") {
      continue;
    }
    const Key* key = config_detail::find_key(name);
    if (key == nullptr) {
      return tl::unexpected(config_error(unknown_key_message(source, name), source, 0));
    }
    if (key->kind == ValueKind::price_table) {
      // Says which price is wrong (a record written before nan was refused holds null).
      auto prices = config_detail::parse_prices(item);
      if (auto* problem = std::get_if<std::string>(&prices)) {
        return fail(ErrorKind::config, fmt::format("{}: {}", source, *problem));
      }
      TRY(assign(config, *key, Value(std::get<PriceTable>(std::move(prices))), source, source, 0));
      continue;
    }
    const auto value = json_value(item);
    if (!value) {
      return fail(ErrorKind::config,
                  fmt::format("{}: {}: expected {}", source, name, config_detail::expected(*key)));
    }
    TRY(assign(config, *key, *value, source, source, 0));
  }
  return {};
}

std::vector<std::string> describe_config_keys() {
  std::vector<std::string> lines;
  for (const Key& key : config_detail::keys()) {
    const std::string variable =
        key.kind == ValueKind::price_table ? "files only" : "env " + env_variable(key.path);
    lines.push_back(fmt::format("{}: {} ({})", key.path, config_detail::expected(key), variable));
  }
  return lines;
}

} // namespace ralph
