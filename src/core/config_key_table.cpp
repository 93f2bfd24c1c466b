// The key table: every configuration key with its kind, bounds and field, what it does, and the
// names that set it (flags, goals-file key, `/budget` name, another variable). A flag's own help
// is written where its --help line says more than the key's (examples, a default).
#include "config_key_makers.h"

namespace ralph::config_detail {
namespace {

using F = FlagForm;
using S = std::string;
using L = std::vector<std::string>;
using I64 = std::int64_t;
using Z = std::size_t;

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

// The model, and the agent that works on the goal: the built-in one or an agent CLI.
std::vector<Key> model_and_agent_keys() {
  return {
      named(string_key("model", [](Config& c) -> S& { return c.model; }),
            {.help = "the agent's model as PROVIDER/MODEL (providers: openai, openai-responses, "
                     "anthropic, ollama, openai-compat, scripted)",
             .flags = {{.names = "--model,-m",
                        .value_name = "PROVIDER/MODEL",
                        .help = "openai/..., openai-responses/..., anthropic/..., ollama/..., "
                                "openai-compat/... (with --base-url), scripted/FILE.json"}},
             .goal_key = "model"}),
      named(string_key("base_url", [](Config& c) -> S& { return c.base_url; }),
            {.help = "the model server's URL: needed for openai-compat, or to override a "
                     "provider's default",
             .flags = {{.names = "--base-url",
                        .value_name = "URL",
                        .help = "server URL for openai-compat, or to override a default"}},
             .goal_key = "base_url"}),
      named(int_key<int>("agent.max_steps", 1, 100000,
                         [](Config& c) -> int& { return c.agent.max_steps; }),
            {.help = "most model calls in one attempt of the built-in agent",
             .flags = {{.names = "--max-steps",
                        .value_name = "N",
                        .help = "most model calls in one attempt (default 40)"}},
             .goal_key = "max_steps",
             .budget_name = "steps",
             .env_alias = "RALPH_MAX_STEPS"}),
      named(with_unit(int_key<int>("agent.max_tokens", 1, 10'000'000,
                                   [](Config& c) -> int& { return c.agent.max_tokens; }),
                      Unit::tokens),
            {.help = "output token cap of each model call: 4096, 8k",
             .flags = {{.names = "--max-tokens", .value_name = "N"}},
             .goal_key = "max_tokens"}),
      named(optional_number_key(
                "agent.temperature", 0, 2,
                [](Config& c) -> std::optional<double>& { return c.agent.temperature; }),
            {.help = "sampling temperature (0 to 2); unset: the provider's default",
             .flags = {{.names = "--temperature",
                        .value_name = "T",
                        .help = "sampling temperature (0 to 2)"}},
             .goal_key = "temperature"}),
      named(bool_key("agent.stream", [](Config& c) -> bool& { return c.agent.stream; }),
            {.help = "stream model responses as they are written (false: whole responses)",
             .flags = {{.names = "--no-stream",
                        .form = F::fixed,
                        .fixed = "false",
                        .help = "ask for whole responses instead of streams"}}}),
      named(
          string_key("agent.system_prompt", [](Config& c) -> S& { return c.agent.system_prompt; }),
          {.help = "the built-in agent's system prompt; empty: the built-in prompt"}),
      named(string_key("agent.cli", [](Config& c) -> S& { return c.agent.cli; }),
            {.help = "an agent CLI works on the goal: claude, codex, gemini, aider, goose, "
                     "opencode, or any [agents.NAME] of the configuration",
             .flags = {{.names = "--agent", .value_name = "NAME"}},
             .goal_key = "agent"}),
      named(string_key("agent.model", [](Config& c) -> S& { return c.agent.model; }),
            {.help = "the model the agent CLI is to use",
             .flags = {{.names = "--agent-model", .value_name = "MODEL"}},
             .goal_key = "agent_model"}),
      named(list_key("agent.args", [](Config& c) -> L& { return c.agent.args; }),
            {.help = "arguments added to the agent CLI's command line (before a `resume` "
                     "subcommand or a trailing `-`)",
             .flags = {{.names = "--agent-arg",
                        .form = F::list_item,
                        .value_name = "ARG",
                        .help = "an argument added to the agent CLI's command line (repeatable; "
                                "--agent-arg=--flag for one that starts with -)"}},
             .goal_key = "agent_args"}),
      named(string_key("agent.command", [](Config& c) -> S& { return c.agent.command; }),
            {.help = "any other program as the agent, run by /bin/sh -c: the prompt on stdin, or "
                     "where {prompt} or {prompt_file} appears; its output is the answer",
             .flags = {{.names = "--agent-cmd", .value_name = "CMD"}},
             .goal_key = "agent_cmd"}),
      named(seconds_key("agent.timeout", 1, k_week,
                        [](Config& c) -> Duration& { return c.agent.timeout; }),
            {.help = "most wall time of one attempt of the agent CLI",
             .flags = {{.names = "--agent-timeout",
                        .value_name = "DURATION",
                        .help = "most wall time of one attempt of the agent CLI (default 1h)"}},
             .goal_key = "agent_timeout"}),
      named(seconds_key("agent.idle_timeout", 1, k_week,
                        [](Config& c) -> Duration& { return c.agent.idle_timeout; }),
            {.help = "stop the agent CLI after this long without output",
             .flags = {{.names = "--agent-idle-timeout",
                        .value_name = "DURATION",
                        .help = "stop the agent CLI after this long without output (default "
                                "10m)"}}}),
  };
}

// The agent's tools, the model servers, the session store and the display.
std::vector<Key> runtime_keys() {
  return {
      named(seconds_key("tools.shell_timeout", 1, 86400,
                        [](Config& c) -> Duration& { return c.tools.shell_timeout; }),
            {.help = "most time one shell command of the agent may run"}),
      named(size_key("tools.output_limit", 1000, k_max_int,
                     [](Config& c) -> Z& { return c.tools.output_limit; }),
            {.help = "bytes of a tool's output given back to the model"}),
      named(seconds_key("http.connect_timeout", 1, 3600,
                        [](Config& c) -> Duration& { return c.http.connect_timeout; }),
            {.help = "most time to connect to a model server"}),
      named(seconds_key("http.idle_timeout", 1, 86400,
                        [](Config& c) -> Duration& { return c.http.idle_timeout; }),
            {.help = "most time without a byte from a model server"}),
      named(int_key<int>("http.max_retries", 0, 20,
                         [](Config& c) -> int& { return c.http.max_retries; }),
            {.help = "retries of a transient fault of a model server (429, 5xx, a dropped "
                     "connection), with backoff"}),
      named(string_key("store.path", [](Config& c) -> S& { return c.store.path; }),
            {.help = "the SQLite file sessions are recorded in, relative to the workspace"}),
      named(string_key("store.url", [](Config& c) -> S& { return c.store.url; }),
            {.help = "where sessions are recorded instead of store.path: a "
                     "postgresql://USER:PASSWORD@HOST/DB URL, or a SQLite file",
             .flags = {{.names = "--store",
                        .value_name = "URL",
                        .help = "the session store: postgresql://USER:PASSWORD@HOST/DB, or a "
                                "SQLite file (default .ralph/ralph.db; also RALPH_STORE_URL, "
                                "store.url)"}}}),
      named(bool_key("mcp.project_file", [](Config& c) -> bool& { return c.mcp.project_file; }),
            {.help = "give the built-in agent the MCP servers of the workspace's .mcp.json (Claude "
                     "Code's file) besides [mcp.servers.NAME]"}),
      named(bool_key("store.enabled", [](Config& c) -> bool& { return c.store.enabled; }),
            {.help = "record each session in the store (false: no record, no resume)",
             .flags = {{.names = "--no-store",
                        .form = F::fixed,
                        .fixed = "false",
                        .help = "do not record the session in .ralph/ralph.db (no resume)"}}}),
      named(zero_means(seconds_key("store.retry_seconds", 0, k_week,
                                   [](Config& c) -> Duration& { return c.store.retry; }),
                       "no retry"),
            {.help = "how long a PostgreSQL store retries connection faults before a write "
                     "fails"}),
      named(zero_means(
                seconds_key("display.progress_interval", 0, 86400,
                            [](Config& c) -> Duration& { return c.display.progress_interval; }),
                "never"),
            {.help = "off a terminal, a progress line this often during a long phase (0: never)",
             .flags = {{.names = "--progress-interval", .value_name = "SECONDS"}}}),
  };
}

// The outer loop and the budgets that bound it.
std::vector<Key> loop_keys() {
  return {
      named(bool_key("loop.enabled", [](Config& c) -> bool& { return c.loop.enabled; }),
            {.help = "with no verifier given, judge the answers on the agent's own model (seed "
                     "001's RALPH_LOOP_ENABLED)"}),
      named(int_key<int>("loop.max_iterations", 1, 100000,
                         [](Config& c) -> int& { return c.loop.max_iterations; }),
            {.help = "most attempts",
             .flags = {{.names = "--max-iterations",
                        .value_name = "N",
                        .help = "most attempts (default 3)"}},
             .goal_key = "max_iterations",
             .budget_name = "iterations"}),
      named(enum_key("loop.feedback", k_feedback_mode_names,
                     [](Config& c) -> FeedbackMode& { return c.loop.feedback; }),
            {.help = "how a failed verdict goes back to the agent: append (a message in the same "
                     "conversation) or continue (a compact restart)",
             .flags = {{.names = "--feedback",
                        .value_name = "MODE",
                        .help = "append (a message in the same conversation) or continue (a "
                                "compact restart)"}},
             .goal_key = "feedback"}),
      named(enum_key("loop.trigger", k_trigger_mode_names,
                     [](Config& c) -> TriggerMode& { return c.loop.trigger.mode; }),
            {.help = "which answers are verified: always, keywords (one of loop.keywords is in "
                     "it), marker (it has the completion marker) or heartbeat",
             .flags = {{.names = "--trigger",
                        .value_name = "MODE",
                        .help = "always, keywords, marker or heartbeat"}},
             .goal_key = "trigger"}),
      named(list_key("loop.keywords", [](Config& c) -> L& { return c.loop.trigger.keywords; }),
            {.help = "the words of the keywords trigger",
             .flags = {{.names = "--keyword",
                        .form = F::list_item,
                        .value_name = "WORD",
                        .help = "a trigger keyword for --trigger keywords (repeatable)"}}}),
      named(bool_key("loop.heartbeat", [](Config& c) -> bool& { return c.loop.heartbeat; }),
            {.help = "this run is a periodic check-in (HEARTBEAT.md applies)",
             .flags = {{.names = "--heartbeat", .form = F::fixed, .fixed = "true"}}}),
      named(bool_key("loop.verify_heartbeat",
                     [](Config& c) -> bool& { return c.loop.trigger.verify_heartbeat; }),
            {.help = "verify heartbeat runs whatever the trigger, so a lazy HEARTBEAT_OK is "
                     "judged like any answer (`ralph heartbeat`: true unless set)",
             .flags = {{.names = "--verify-heartbeat",
                        .form = F::fixed,
                        .fixed = "true",
                        .help = "verify heartbeat runs (a lazy HEARTBEAT_OK is judged like any "
                                "answer)"},
                       {.names = "--verify-heartbeat",
                        .form = F::optional,
                        .value_name = "BOOL",
                        .fixed = "true",
                        .help = "judge every answer with HEARTBEAT.md in view, so a lazy "
                                "HEARTBEAT_OK fails and is retried (default true; needs --judge)",
                        .commands = "heartbeat"},
                       {.names = "--no-verify-heartbeat",
                        .form = F::fixed,
                        .fixed = "false",
                        .help = "accept each answer unjudged (no judge needed)",
                        .commands = "heartbeat"}}}),
      named(bool_key("loop.verify_final", [](Config& c) -> bool& { return c.loop.verify_final; }),
            {.help = "verify the last attempt too (false: it is delivered unverified, as in seed "
                     "001)",
             .flags = {{.names = "--no-verify-final",
                        .form = F::fixed,
                        .fixed = "false",
                        .help = "deliver the last attempt without verifying it"}}}),
      named(int_key<int>("loop.stall_after", 2, 1000,
                         [](Config& c) -> int& { return c.loop.stall_after; }),
            {.help = "attempts failing the same commands in a row before the run is stalled"}),
      named(size_key("loop.runtime_summary_chars", 200, k_max_int,
                     [](Config& c) -> Z& { return c.loop.runtime_summary_chars; }),
            {.help = "the cap of the runtime summary in the prompt of `continue` feedback"}),
      named(with_unit(int_key<I64>("budget.max_tokens", 0, 1e15,
                                   [](Config& c) -> I64& { return c.budget.max_tokens; }),
                      Unit::tokens),
            {.help = "most input+output tokens over the run, the judge's and sub-queries' "
                     "included",
             .flags = {{.names = "--token-budget",
                        .value_name = "N",
                        .help = "most input+output tokens over the run, the judge's included: "
                                "200000, 200k, 2M"}},
             .goal_key = "token_budget",
             .budget_name = "tokens"}),
      named(with_unit(number_key("budget.max_cost_usd", 0, 1e9,
                                 [](Config& c) -> double& { return c.budget.max_cost_usd; }),
                      Unit::usd),
            {.help = "most spend over the run, in USD; needs [prices] for every model used",
             .flags = {{.names = "--cost-budget",
                        .value_name = "USD",
                        .help = "most spend over the run: 5, 0.50 (needs [prices] in the "
                                "configuration)"}},
             .goal_key = "cost_budget",
             .budget_name = "cost"}),
      named(seconds_key("budget.max_time", 0, 1e9,
                        [](Config& c) -> Duration& { return c.budget.max_time; }),
            {.help = "most wall time of the run",
             .flags = {{.names = "--time-budget",
                        .value_name = "DURATION",
                        .help = "most wall time of the run: 90 (seconds), 90s, 1.5m, 2h, 1h30m"},
                       {.names = "--max-time,--time-budget",
                        .value_name = "DURATION",
                        .help = "after this long since a round's first stop, a failing one is "
                                "let through: 10m",
                        .commands = "hook"}},
             .goal_key = "time_budget",
             .budget_name = "time"}),
  };
}

} // namespace

std::vector<Key> make_keys() {
  std::vector<Key> keys =
      joined({model_and_agent_keys, runtime_keys, loop_keys, verify_keys, document_keys});
  keys.push_back(named(prices_key(),
                       {.help = "USD per million input and output tokens of each PROVIDER/MODEL "
                                "(NAME/MODEL for an agent CLI), for the cost budget and the cost "
                                "in results"}));
  return keys;
}

} // namespace ralph::config_detail
