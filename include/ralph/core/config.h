#pragma once

#include "ralph/core/error.h"
#include "ralph/core/settings.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph {

// Everything a run can be configured with. Built from defaults, then files, the environment and
// flags, each layer overriding the one before (see README "Configuration").
struct Config {
  std::string model = "openai/gpt-4.1";
  std::string base_url;
  AgentSettings agent;
  ToolSettings tools;
  HttpSettings http;
  StoreSettings store;
  DisplaySettings display;
  LoopSettings loop;
  BudgetSettings budget;
  VerifySettings verify;
  JudgeSettings judge;
  EvidenceSettings evidence;
  ChecksSettings checks;
  QaSettings qa;
  RlmSettings rlm;
  TaskSettings task;
  DocumentSettings document;
  PriceTable prices;
  AgentPresets agents = default_agent_presets();
  McpSettings mcp;
  // `[[notify]]` entries of every file read, in order (files add entries, none replaces them).
  std::vector<NotifyTarget> notify;
};

// A configuration key set from text by a flag, a goals-file key or a chat command; applied after
// files and environment.
struct ConfigOverride {
  std::string key;     // "agent.max_steps"
  std::string value;   // as typed
  std::string flag;    // "--max-steps", for error messages
  bool append = false; // a repeated flag: add to the list the first occurrence set
};

// Applies `overrides` in their order (an `append` one adds to its list).
Result<void> apply_overrides(Config& config, const std::vector<ConfigOverride>& overrides);

// A ConfigOverride parsed and checked once, so that it can be applied to any number of
// configurations (each goal of a batch, a resumed session's recorded one) without its text being
// read again. Copies share the parsed value; thread-safe.
class Setting {
public:
  // The text checked as set_config_value checks it, with the same errors.
  static Result<Setting> parse(ConfigOverride text);
  // The same check, failing with only the reason, for a front end to word: what the key expects
  // ("expected a duration like 90s, 1.5m, 2h (0: no limit)"), or "unknown key 'x'".
  static tl::expected<Setting, std::string> check(ConfigOverride text);
  // Sets the key (a list item of an `append` override is added to the list).
  void apply(Config& config) const;
  const ConfigOverride& text() const { return m_text; }

private:
  struct Parsed; // the key and its typed value (core/config_keys.h)
  Setting(ConfigOverride text, std::shared_ptr<const Parsed> parsed);

  ConfigOverride m_text;
  std::shared_ptr<const Parsed> m_parsed;
};

// Each override parsed (Setting::parse); the first error.
Result<std::vector<Setting>> parse_settings(const std::vector<ConfigOverride>& overrides);
// Applies `settings` in their order.
void apply_settings(Config& config, const std::vector<Setting>& settings);

// Applies a TOML document to `config`. `source` names it in errors ("FILE:LINE: ..."). An unknown
// key, a value of the wrong type or out of range is an ErrorKind::config error carrying file and
// line; `config` may then be partly updated.
Result<void> apply_config_toml(Config& config, std::string_view text, const std::string& source);

// Reads and applies a TOML file. A missing file is not an error when `optional` is set.
Result<void> apply_config_file(Config& config, const std::filesystem::path& file, bool optional);

// Applies the environment: every key has a variable RALPH_<KEY> (dots as underscores, upper
// case, e.g. RALPH_AGENT_MAX_STEPS), plus the aliases RALPH_MAX_STEPS and the seeds'
// RALPH_LOOP_ENABLED / RALPH_LOOP_MAX_ITERATIONS. `lookup` returns nullptr for unset variables.
Result<void> apply_environment(Config& config,
                               const std::function<const char*(const char*)>& lookup);

// Checks the names of the environment's variables: each RALPH_* one names a setting (as
// apply_environment reads them) or is one of the few read by other parts of ralph
// (RALPH_QUEUE_URL) and by its tests, scripts and benchmarks (k_other_ralph_variables), as a key
// in a file names a key. Otherwise an ErrorKind::config error naming the variable and the
// closest one, so a mistyped variable is not ignored without a word.
Result<void> check_environment_names(const std::vector<std::string>& names);

// Sets one key from text, as a flag or variable would ("agent.max_steps", "12"). A list key
// takes a JSON array of strings or a single item. `source` names where the text came from in
// errors.
Result<void> set_config_value(Config& config, std::string_view key, std::string_view text,
                              const std::string& source);

// Whether `text` is a value `key` takes from a flag or variable: nullopt when it is, otherwise
// what the key expects ("expected a duration like 90s, 1.5m, 2h (0: no limit)"), or that the
// key is unknown. Lets a front end check a flag before anything is loaded.
std::optional<std::string> check_config_text(std::string_view key, std::string_view text);

// What `key` takes, as its errors say ("an integer from 1 to 100000", "a duration like 90s, 1.5m,
// 2h (0: no limit)"); empty for an unknown key.
std::string config_key_expects(std::string_view key);

// Adds one item to a list key (a repeated flag); other keys are set as by set_config_value.
Result<void> append_config_value(Config& config, std::string_view key, std::string_view text,
                                 const std::string& source);

// The whole configuration as one JSON object of dotted keys ({"agent.max_steps": 40, ...}, prices
// under "prices"), for the session record. Holds no secrets: keys never enter a Config.
std::string config_to_json(const Config& config);

// Applies such an object (unknown keys are errors, as in files). `source` names it in errors.
Result<void> apply_config_json(Config& config, std::string_view json, const std::string& source);

// Every key as "name: what it takes", for documentation and error hints.
std::vector<std::string> describe_config_keys();

} // namespace ralph
