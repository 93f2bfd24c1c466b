#pragma once

// What each layer is configured with, as typed values with one default each. The configuration
// loader (config.h) fills these from files, the environment and flags; the layers take them as
// they are. Durations are std::chrono types, sizes std::size_t, choices enums.

#include "ralph/core/enum_names.h"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph {

// How a failed attempt's feedback reaches the agent.
enum class FeedbackMode {
  append,       // a user message in the same conversation
  continuation, // a compact continuation prompt replaces the history ("continue")
};
inline constexpr EnumName<FeedbackMode> k_feedback_mode_names[] = {
    {FeedbackMode::append, "append"}, {FeedbackMode::continuation, "continue"}};

// Which answers are verified at all.
enum class TriggerMode {
  always,    // every final answer
  keywords,  // only answers containing one of the keywords
  marker,    // only answers that claim completion with the marker
  heartbeat, // only heartbeat runs (periodic check-ins), all of them
};
inline constexpr EnumName<TriggerMode> k_trigger_mode_names[] = {
    {TriggerMode::always, "always"},
    {TriggerMode::keywords, "keywords"},
    {TriggerMode::marker, "marker"},
    {TriggerMode::heartbeat, "heartbeat"}};

// What a verifier's `error` verdict (the check could not be made) means for the attempt.
enum class ErrorPolicy {
  fail_open,   // do not hold the answer back (the judge's default)
  fail_closed, // an unchecked answer is not accepted (the default for everything else)
};
inline constexpr EnumName<ErrorPolicy> k_error_policy_names[] = {
    {ErrorPolicy::fail_open, "fail_open"}, {ErrorPolicy::fail_closed, "fail_closed"}};

// How loosely a QA quote may match the document, strictest first; each level includes the ones
// before it. docqa/verbatim.h says exactly what each level folds.
enum class MatchLevel { exact, whitespace, typographic, casefold };
inline constexpr EnumName<MatchLevel> k_match_level_names[] = {
    {MatchLevel::exact, "exact"},
    {MatchLevel::whitespace, "whitespace"},
    {MatchLevel::typographic, "typographic"},
    {MatchLevel::casefold, "casefold"}};

// What a session works on: a goal in a workspace, or a document (`ralph qa`, `ralph task`).
enum class DocumentMode { none, qa, task };
inline constexpr EnumName<DocumentMode> k_document_mode_names[] = {
    {DocumentMode::none, ""}, {DocumentMode::qa, "qa"}, {DocumentMode::task, "task"}};

// Which budget a warning or an exhaustion is about.
enum class BudgetKind { iterations, steps, tokens, cost, time, sub_queries };
inline constexpr EnumName<BudgetKind> k_budget_kind_names[] = {
    {BudgetKind::iterations, "iterations"},
    {BudgetKind::steps, "steps"},
    {BudgetKind::tokens, "tokens"},
    {BudgetKind::cost, "cost"},
    {BudgetKind::time, "time"},
    {BudgetKind::sub_queries, "sub-queries"}};

// The budget as a sentence names it: "the token budget ran out" (to_string is the recorded name).
inline const char* budget_name(BudgetKind kind) {
  constexpr EnumName<BudgetKind> k_names[] = {
      {BudgetKind::iterations, "attempt"}, {BudgetKind::steps, "step"},
      {BudgetKind::tokens, "token"},       {BudgetKind::cost, "cost"},
      {BudgetKind::time, "time"},          {BudgetKind::sub_queries, "sub-query"}};
  return name_of(k_names, kind);
}

inline const char* to_string(FeedbackMode value) {
  return name_of(k_feedback_mode_names, value);
}
inline const char* to_string(TriggerMode value) {
  return name_of(k_trigger_mode_names, value);
}
inline const char* to_string(ErrorPolicy value) {
  return name_of(k_error_policy_names, value);
}
inline const char* to_string(MatchLevel value) {
  return name_of(k_match_level_names, value);
}
inline const char* to_string(DocumentMode value) {
  return name_of(k_document_mode_names, value);
}
inline const char* to_string(BudgetKind value) {
  return name_of(k_budget_kind_names, value);
}

// Durations are milliseconds inside (tests use short ones); the keys give whole seconds.
using Duration = std::chrono::milliseconds;

// The machine-readable output an external agent CLI prints (agent/cli_stream.h parses each).
enum class CliFormat {
  claude,   // claude -p --output-format stream-json --verbose
  codex,    // codex exec --json
  gemini,   // gemini -o stream-json
  goose,    // goose run --output-format stream-json
  opencode, // opencode run --format json (v1 and v2 events)
  aider,    // aider --message: plain text with a "Tokens: … Cost: …" line
  text,     // any other program: its whole stdout is the answer
};
inline constexpr EnumName<CliFormat> k_cli_format_names[] = {
    {CliFormat::claude, "claude"}, {CliFormat::codex, "codex"},       {CliFormat::gemini, "gemini"},
    {CliFormat::goose, "goose"},   {CliFormat::opencode, "opencode"}, {CliFormat::aider, "aider"},
    {CliFormat::text, "text"}};
inline const char* to_string(CliFormat format) {
  return name_of(k_cli_format_names, format);
}

// How ralph runs one external agent CLI (`[agents.NAME]`). Arguments may hold placeholders:
// {prompt}, {prompt_file} (a file holding the prompt; with neither, the prompt goes on stdin),
// {model}, {session} (the CLI's own session id), {ralph_session} and {budget_usd}.
struct AgentPreset {
  std::vector<std::string> command; // the first attempt
  // A later attempt that goes on in the CLI's own session (feedback `append`); empty: the CLI
  // cannot resume, and every attempt starts afresh from `command`.
  std::vector<std::string> resume;
  CliFormat format = CliFormat::text;
  std::vector<std::string> model_args;  // added when a model is chosen
  std::vector<std::string> budget_args; // added when a cost budget is set: what is left of it
  std::vector<std::string> env;         // NAME=value set for the CLI
};
using AgentPresets = std::map<std::string, AgentPreset, std::less<>>;

// The built-in presets for claude, codex, gemini, aider, goose and opencode.
AgentPresets default_agent_presets();

struct AgentSettings {
  int max_steps = 40; // model calls in one attempt
  int max_tokens = 4096;
  std::optional<double> temperature;
  bool stream = true;
  std::string system_prompt; // empty: the built-in prompt
  // An external agent instead of the built-in one: a preset of `agents` by name, or any program
  // (`command`, run by /bin/sh -c). Both empty: the built-in agent.
  std::string cli;
  std::string command;
  std::string model;                        // the external agent's model (its preset's model_args)
  std::vector<std::string> args;            // added to the external agent's command line
  Duration timeout = std::chrono::hours(1); // one attempt of an external agent
  Duration idle_timeout = std::chrono::minutes(10); // no output from it for this long
};

struct ToolSettings {
  Duration shell_timeout = std::chrono::seconds(120);
  std::size_t output_limit = 30000; // bytes of tool output given back to the model
};

// One MCP server whose tools the built-in agent gets, as `mcp__NAME__TOOL`: `[mcp.servers.NAME]`
// (Codex's key names) or an entry of the workspace's `.mcp.json` (Claude Code's file). Either
// `command` (stdio) or `url` (streamable HTTP) is set.
struct McpServerSettings {
  std::string name;
  std::string command; // stdio: the program (PATH looked up), run in `cwd`
  std::vector<std::string> args;
  std::map<std::string, std::string> env; // set for the server (nothing else but PATH and HOME is)
  std::vector<std::string> env_vars;      // passed through from ralph's environment by name
  std::string cwd;                        // empty: the workspace; relative: under it
  std::string url;                        // streamable HTTP endpoint
  std::string bearer_token_env_var;       // Authorization: Bearer $VAR on every request
  std::map<std::string, std::string> headers;
  bool enabled = true;
  bool required = false;  // a server that cannot start stops the run before the first model call
  bool shareable = false; // one process for every session of a batch or server, not one each
  Duration startup_timeout = std::chrono::seconds(10);
  Duration tool_timeout = std::chrono::seconds(60); // the longest a call may take, progress or not
  std::vector<std::string> enabled_tools;           // empty: all the server lists
  std::vector<std::string> disabled_tools;
  std::string origin; // where it was declared, for messages: "FILE:LINE" or "WORKSPACE/.mcp.json"
};

struct McpSettings {
  // In the order declared; names are unique (a later declaration of a name replaces the earlier).
  std::vector<McpServerSettings> servers;
  bool project_file = true; // read the workspace's `.mcp.json`
};

// How a run is shown.
struct DisplaySettings {
  // Off a terminal, a progress line this often during a long phase (seed 003's progress
  // heartbeat); 0: never. A terminal gets a live status line instead.
  Duration progress_interval = std::chrono::seconds(8);
};

// Where sessions are recorded.
struct StoreSettings {
  std::string path = ".ralph/ralph.db"; // relative to the workspace
  // Where sessions go when set: a postgresql:// URL, or a SQLite file as `path` is. It wins over
  // `path` (`--store`, RALPH_STORE_URL, `store.url`).
  std::string url;
  bool enabled = true;
  // How long a PostgreSQL store retries connection faults before the write fails.
  Duration retry = std::chrono::seconds(30);
};

struct HttpSettings {
  Duration connect_timeout = std::chrono::seconds(10);
  Duration idle_timeout = std::chrono::seconds(120);
  int max_retries = 5; // survives 30 % transient faults: see docs/performance.md
};

// Which answers the outer loop verifies.
struct TriggerSettings {
  TriggerMode mode = TriggerMode::always;
  std::vector<std::string> keywords{"done", "completed", "finished", "ready", "here you go"};
  // Heartbeat runs are verified whatever the mode (seed 002's verifyHeartbeat); without it they
  // are verified only in `heartbeat` mode.
  bool verify_heartbeat = false;
};

// The outer loop. It runs whenever a verifier is configured; `enabled` alone (seed 001's
// RALPH_LOOP_ENABLED) turns on a judge on the agent's own model.
struct LoopSettings {
  bool enabled = false;
  int max_iterations = 3;
  FeedbackMode feedback = FeedbackMode::append;
  TriggerSettings trigger;
  bool heartbeat = false;   // this run is a periodic check-in
  bool verify_final = true; // false: the last attempt is delivered unverified (seed 001)
  int stall_after = 3;      // attempts with the same command failures before `stalled`
  std::size_t runtime_summary_chars = 4000; // the continuation prompt's summary cap
};

// Limits of one run; 0 means none. Tokens and cost count every model call of the run, the
// judge's and sub-queries' included.
struct BudgetSettings {
  std::int64_t max_tokens = 0;                 // input + output
  double max_cost_usd = 0;                     // needs a price for every model used
  Duration max_time = std::chrono::seconds(0); // wall time
};

// Commands and programs the runtime runs itself to check an attempt.
struct VerifySettings {
  std::vector<std::string> commands; // shell commands; exit 0 passes
  std::vector<std::string> exec;     // programs reading the attempt as JSON, printing a verdict
  Duration command_timeout = std::chrono::seconds(600);
  Duration exec_timeout = std::chrono::seconds(120);
  std::size_t excerpt_chars = 4000;
  int runs = 1;   // flaky commands: run up to `runs` times...
  int quorum = 1; // ...and pass when `quorum` runs pass
  ErrorPolicy command_policy = ErrorPolicy::fail_closed;
  std::vector<std::string> protect; // globs of files no attempt may change
  std::vector<std::string> junit;   // globs of JUnit XML reports the commands write
};

struct JudgeSettings {
  // Which model judges: PROVIDER/MODEL, or the agent's own (written "agent"). Neither: no judge,
  // unless loop.enabled asks for one on the agent's model.
  std::string model;
  bool on_agent_model = false;
  std::string base_url;
  int max_tokens = 512;
  Duration timeout = std::chrono::seconds(30);
  std::size_t context_chars = 32000;
  std::size_t rules_chars = 8000;
  std::vector<std::string> rules_files{"AGENTS.md", "SOUL.md"};
  ErrorPolicy policy = ErrorPolicy::fail_open;
  bool structured = true;
};

// The test runners and check scripts whose runs count as evidence by default.
inline constexpr std::array<std::string_view, 39> k_default_check_commands = {
    "pytest*",
    "python -m pytest*",
    "python3 -m pytest*",
    "python -m unittest*",
    "python3 -m unittest*",
    "tox*",
    "nox*",
    "npm test*",
    "npm run test*",
    "npx jest*",
    "npx vitest*",
    "yarn test*",
    "pnpm test*",
    "node --test*",
    "go test*",
    "go vet*",
    "cargo test*",
    "cargo check*",
    "cargo clippy*",
    "make test*",
    "make check*",
    "ctest*",
    "ninja test*",
    "mvn test*",
    "mvn verify*",
    "gradle test*",
    "./gradlew test*",
    "dotnet test*",
    "rspec*",
    "bundle exec rspec*",
    "phpunit*",
    "mix test*",
    "sh *test*",
    "bash *test*",
    "./*test*",
    "sh *check*",
    "bash *check*",
    "./*check*",
    "bats *"};

// Verifier-first completion (seed 004): the marker plus passing evidence from a trusted tool.
// `marker` is the completion marker of every run, verifier-first or not (the `marker` trigger,
// and what is stripped from the answer the user sees).
struct EvidenceSettings {
  bool enabled = false;
  std::string marker = "<promise>DONE</promise>";
  std::vector<std::string> tools{"shell"};
  // Without a verify command, which command lines of the trusted tools count as a check: fnmatch
  // patterns over the command the line runs (`cd DIR &&`, `VAR=value` and `2>&1` aside; a `;`,
  // pipe or `||` never counts). `*` alone counts any command (what counted before this setting).
  std::vector<std::string> commands{k_default_check_commands.begin(),
                                    k_default_check_commands.end()};
  bool require = true;
  std::string instructions; // extra words for the agent on how to verify this goal
};

// Deterministic checks of the answer text; 0 for a bound means none.
struct ChecksSettings {
  std::vector<std::string> must_match;
  std::vector<std::string> must_not_match;
  std::size_t min_chars = 0;
  std::size_t max_chars = 0;
  bool json = false;
  std::string json_schema; // path of a JSON Schema file, relative to the workspace
  std::size_t min_bullets = 0;
  std::size_t max_bullets = 0;
};

// Grounded document QA (`ralph qa`): what an answer must look like and how verbatim its quotes
// must be.
struct QaSettings {
  std::size_t min_bullets = 3;
  std::size_t max_bullets = 7;
  std::size_t min_quotes = 3;
  std::size_t max_quotes = 8;
  std::size_t max_quote_chars = 160;
  std::size_t min_quote_words = 3; // a quote must say something: "RLM" alone is no evidence
  std::size_t min_quote_chars = 12;
  MatchLevel match_level = MatchLevel::whitespace; // the loosest accepted
  std::size_t window_chars = 220;                  // evidence around each quote the judge sees
};

// The long-context sandbox (RLM) the document is explored in.
struct RlmSettings {
  int max_steps = 80;       // model calls per attempt
  int max_sub_queries = 60; // llm_query calls per attempt
  int concurrency = 6;      // batched sub-queries in flight
  std::size_t memory_bytes = std::size_t{256} << 20U;
  Duration time_limit = std::chrono::seconds(30); // per execution
  std::size_t output_chars = 2000;
  std::string sub_model; // PROVIDER/MODEL for llm_query; empty: the agent's model
  int sub_max_tokens = 1024;
};

// Task mode (`ralph task`): the memory file and the minimum sizes of what the reasoner returns.
struct TaskSettings {
  std::string mem_file; // relative to the workspace; empty: no memory file
  std::size_t memory_chars = 1500;
  std::size_t min_output_chars = 40;
  std::size_t min_memory_chars = 10;
};

// The document of a `ralph qa` or `ralph task` session, recorded so that it can be resumed.
struct DocumentSettings {
  std::string path; // absolute
  DocumentMode mode = DocumentMode::none;
};

// USD per million tokens of one model.
struct Price {
  double input = 0;
  double output = 0;
  bool operator==(const Price&) const = default;
};

// By "provider/model", as written in --model, --judge and --sub-model.
using PriceTable = std::map<std::string, Price, std::less<>>;

// What a notification is sent for: a session's end (its status's name) for those a person waits
// for, a budget nearly spent, a batch's end.
enum class NotifyEvent {
  completed,
  failed,
  blocked,
  stalled,
  budget_exhausted,
  interrupted,
  budget_warning, // a budget at 80 %, or the last of several attempts starting
  batch_finished, // every goal of a batch (or of a queue's batch) has a result
};
inline constexpr EnumName<NotifyEvent> k_notify_event_names[] = {
    {NotifyEvent::completed, "completed"},
    {NotifyEvent::failed, "failed"},
    {NotifyEvent::blocked, "blocked"},
    {NotifyEvent::stalled, "stalled"},
    {NotifyEvent::budget_exhausted, "budget_exhausted"},
    {NotifyEvent::interrupted, "interrupted"},
    {NotifyEvent::budget_warning, "budget_warning"},
    {NotifyEvent::batch_finished, "batch_finished"}};
inline const char* to_string(NotifyEvent value) {
  return name_of(k_notify_event_names, value);
}

// One `[[notify]]` entry: where notifications go (a webhook or a program) and which. Not recorded
// with a session: a resumed one notifies where the configuration of the process resuming it says.
struct NotifyTarget {
  std::string url;                  // an http(s) webhook: the event JSON POSTed
  std::vector<std::string> command; // or a program run without a shell, the event JSON on stdin
  // What is sent; by default the ends a person waits for and batch_finished.
  std::vector<NotifyEvent> events = {NotifyEvent::completed,        NotifyEvent::failed,
                                     NotifyEvent::blocked,          NotifyEvent::stalled,
                                     NotifyEvent::budget_exhausted, NotifyEvent::batch_finished};
  // The environment variable holding the webhook's HMAC key (X-Ralph-Signature-256); empty: the
  // deliveries are not signed. The key itself is never in a file.
  std::string secret_env;
  std::vector<std::pair<std::string, std::string>> headers; // added to each webhook request
  // One try's limit (a request, a program's run), and the longest the process waits at its exit
  // for this entry's deliveries still under way.
  Duration timeout = std::chrono::seconds(10);
  std::string origin; // "FILE:LINE" of the entry, naming it in errors and warnings

  bool wants(NotifyEvent event) const {
    for (const NotifyEvent wanted : events) {
      if (wanted == event) {
        return true;
      }
    }
    return false;
  }
};

} // namespace ralph
