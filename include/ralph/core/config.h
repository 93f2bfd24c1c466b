#pragma once

#include "ralph/core/error.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph {

struct AgentSettings {
  int max_steps = 40; // model calls in one attempt
  int max_tokens = 4096;
  std::optional<double> temperature;
  bool stream = true;
  std::string system_prompt; // empty: the built-in prompt
};

struct ToolSettings {
  std::int64_t shell_timeout_s = 120;
  std::int64_t output_limit = 30000; // bytes of tool output given back to the model
};

struct HttpSettings {
  std::int64_t connect_timeout_s = 10;
  std::int64_t idle_timeout_s = 120;
  int max_retries = 2;
};

struct LoopSettings {
  bool enabled = false;
  int max_iterations = 3;
};

// Everything a run can be configured with. Built from defaults, then files, the environment and
// flags, each layer overriding the one before (see README "Configuration").
struct Config {
  std::string model = "openai/gpt-4.1";
  std::string base_url;
  AgentSettings agent;
  ToolSettings tools;
  HttpSettings http;
  LoopSettings loop;
};

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

// Sets one key from text, as a flag or variable would ("agent.max_steps", "12"). `source` names
// where the text came from in errors.
Result<void> set_config_value(Config& config, std::string_view key, std::string_view text,
                              const std::string& source);

// Every key as "name: what it takes", for documentation and error hints.
std::vector<std::string> describe_config_keys();

} // namespace ralph
