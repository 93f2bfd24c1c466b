#pragma once

#include "ralph/core/error.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
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

// Where sessions are recorded.
struct StoreSettings {
  std::string path = ".ralph/ralph.db"; // relative to the workspace
  bool enabled = true;
};

struct HttpSettings {
  std::int64_t connect_timeout_s = 10;
  std::int64_t idle_timeout_s = 120;
  int max_retries = 2;
};

// The outer loop. It runs whenever a verifier is configured; `enabled` alone (seed 001's
// RALPH_LOOP_ENABLED) turns on a judge on the agent's own model.
struct LoopSettings {
  bool enabled = false;
  int max_iterations = 3;
  std::string feedback = "append"; // append | continue
  std::string trigger = "always";  // always | keywords | marker | heartbeat
  std::vector<std::string> keywords{"done", "completed", "finished", "ready", "here you go"};
  bool heartbeat = false;        // this run is a periodic check-in
  bool verify_heartbeat = false; // heartbeat runs are always verified
  bool verify_final = true;      // false: the last attempt is delivered unverified
  int stall_after = 3;           // attempts with the same command failures before `stalled`
  std::int64_t runtime_summary_chars = 4000;
};

struct BudgetSettings {
  std::int64_t max_tokens = 0; // input + output over the run, the judge's included; 0 = none
  double max_cost_usd = 0;     // needs [prices] for every model used; 0 = none
  std::int64_t max_time_s = 0; // wall time of the run; 0 = none
};

// Commands and programs the runtime runs itself to check an attempt.
struct VerifySettings {
  std::vector<std::string> commands; // shell commands; exit 0 passes
  std::vector<std::string> exec;     // programs reading the attempt as JSON, printing a verdict
  std::int64_t command_timeout_s = 600;
  std::int64_t exec_timeout_s = 120;
  std::int64_t excerpt_chars = 4000;
  int runs = 1;   // flaky commands: run up to `runs` times...
  int quorum = 1; // ...and pass when `quorum` runs pass
  std::string command_policy = "fail_closed";
  std::vector<std::string> protect; // globs of files no attempt may change
};

struct JudgeSettings {
  std::string model; // PROVIDER/MODEL; empty: no judge (unless loop.enabled)
  std::string base_url;
  int max_tokens = 512;
  std::int64_t timeout_s = 30;
  std::int64_t context_chars = 32000;
  std::int64_t rules_chars = 8000;
  std::vector<std::string> rules_files{"AGENTS.md", "SOUL.md"};
  std::string policy = "fail_open";
  bool structured = true;
};

// Verifier-first completion (seed 004): the marker plus passing evidence from a trusted tool.
struct EvidenceSettings {
  bool enabled = false;
  std::string marker = "<promise>DONE</promise>";
  std::vector<std::string> tools{"shell"};
  bool require = true;
  std::string instructions; // extra words for the agent on how to verify this goal
};

// Deterministic checks of the answer text.
struct ChecksSettings {
  std::vector<std::string> must_match;
  std::vector<std::string> must_not_match;
  std::int64_t min_chars = 0; // 0 = no bound
  std::int64_t max_chars = 0;
  bool json = false;
  std::string json_schema; // path of a JSON Schema file, relative to the workspace
  std::int64_t min_bullets = 0;
  std::int64_t max_bullets = 0;
};

// Grounded document QA (`ralph qa`): what an answer must look like and how verbatim its quotes
// must be.
struct QaSettings {
  std::int64_t min_bullets = 3;
  std::int64_t max_bullets = 7;
  std::int64_t min_quotes = 3;
  std::int64_t max_quotes = 8;
  std::int64_t max_quote_chars = 160;
  std::int64_t min_quote_words = 3; // a quote must say something: "RLM" alone is no evidence
  std::int64_t min_quote_chars = 12;
  std::string match_level = "whitespace"; // the loosest accepted: exact | whitespace |
                                          // typographic | casefold
  std::int64_t window_chars = 220;        // evidence around each quote the judge sees
};

// The long-context sandbox (RLM) the document is explored in.
struct RlmSettings {
  int max_steps = 80;       // model calls per attempt
  int max_sub_queries = 60; // llm_query calls per attempt
  int concurrency = 6;      // batched sub-queries in flight
  std::int64_t memory_mb = 256;
  std::int64_t time_limit_s = 30; // per execution
  std::int64_t output_chars = 2000;
  std::string sub_model; // PROVIDER/MODEL for llm_query; empty: the agent's model
  int sub_max_tokens = 1024;
};

// Task mode (`ralph task`): the memory file and the minimum sizes of what the reasoner returns.
struct TaskSettings {
  std::string mem_file; // relative to the workspace; empty: no memory file
  std::int64_t memory_chars = 1500;
  std::int64_t min_output_chars = 40;
  std::int64_t min_memory_chars = 10;
};

// The document of a `ralph qa` or `ralph task` session, recorded so that it can be resumed.
struct DocumentSettings {
  std::string path; // absolute
  std::string mode; // "qa", "task"; empty: not a document session
};

// USD per million tokens of one model.
struct PriceSettings {
  double input = 0;
  double output = 0;
};

// Everything a run can be configured with. Built from defaults, then files, the environment and
// flags, each layer overriding the one before (see README "Configuration").
struct Config {
  std::string model = "openai/gpt-4.1";
  std::string base_url;
  AgentSettings agent;
  ToolSettings tools;
  HttpSettings http;
  StoreSettings store;
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
  std::map<std::string, PriceSettings, std::less<>> prices; // by "provider/model"
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

// Sets one key from text, as a flag or variable would ("agent.max_steps", "12"). A list key
// takes a JSON array of strings or a single item. `source` names where the text came from in
// errors.
Result<void> set_config_value(Config& config, std::string_view key, std::string_view text,
                              const std::string& source);

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
