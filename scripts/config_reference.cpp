// Prints docs/reference/configuration.md from the settings table (ralph/core/setting_names.h):
// every configuration key with what it takes, its default (a default Config read through the key
// table), its environment variables, flags, goals-file key and /budget name. `make docs` writes
// the file; the test ConfigReferenceIsCurrent fails while the committed one differs. Built in the
// build tree only, never installed.
#include "ralph/core/config.h"
#include "ralph/core/setting_names.h"
#include "ralph/core/settings.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using ralph::FlagForm;
using ralph::SettingFlag;
using ralph::SettingNames;

// The sections in the order a file is read, each with what its keys are about. A key of a section
// missing here stops the program: a new section needs its sentence.
struct Section {
  std::string_view name;
  std::string_view about;
};
constexpr Section k_sections[] = {
    {"model", "The model the agent talks to."},
    {"agent", "The agent that works on the goal: the built-in agent (a model with tools) or an "
              "agent CLI (`--agent`, `--agent-cmd`)."},
    {"tools", "The built-in agent's tools."},
    {"http", "Connections to model servers."},
    {"store", "Where sessions are recorded (`ralph sessions`)."},
    {"mcp", "MCP servers whose tools the built-in agent gets; each server is a table "
            "`[mcp.servers.NAME]` (below)."},
    {"display", "What a run shows while it works."},
    {"loop", "The outer loop: attempts, which answers are verified, feedback, stalls."},
    {"budget", "Limits of one run; 0 is no limit. Tokens and cost count every model call of the "
               "run, the judge's and sub-queries' included."},
    {"verify", "Commands and programs that check an attempt."},
    {"judge", "The LLM judge."},
    {"evidence", "Verifier-first completion (`--verifier-first`): the completion marker plus "
                 "passing evidence from a trusted tool."},
    {"checks", "Deterministic checks of the answer's text."},
    {"qa", "Grounded document QA (`ralph qa`): what an answer must look like and how verbatim "
           "its quotes must be."},
    {"rlm", "The sandbox a document is explored in (`ralph qa`, `ralph task`)."},
    {"task", "Task mode (`ralph task`): the memory file and what the reasoner must return."},
    {"document", "The document of a `ralph qa` or `ralph task` session, recorded so it can be "
                 "resumed; set by `--doc`."},
    {"prices", "Prices per model, for cost budgets and the cost in results. Set in files only."},
};

// What each field of an `[agents.NAME]` table does, in the order a file writes them; a field
// missing here stops the program.
constexpr std::pair<std::string_view, std::string_view> k_agent_fields[] = {
    {"command", "the command line of the first attempt, as a list: the program and its "
                "arguments"},
    {"resume", "the command line of a later attempt that goes on in the CLI's own session "
               "(feedback `append`); empty: every attempt starts afresh from `command`"},
    {"format", "how ralph reads the CLI's output"},
    {"model_args", "added when a model is chosen (`agent.model`, `--agent-model`)"},
    {"budget_args", "added when a cost budget is set: what is left of it"},
    {"env", "`NAME=value` pairs set for the CLI"},
};

// The syntax, shown once; the program refuses to print an example the configuration would not
// take.
constexpr std::string_view k_example = R"(model = "anthropic/claude-sonnet-4-5"

[agent]
max_steps = 60

[loop]
max_iterations = 5
feedback = "continue"

[budget]
max_time = "30m"         # or seconds: 1800
max_cost_usd = 2

[verify]
commands = ["make test", "make lint"]

[prices."anthropic/claude-sonnet-4-5"]  # USD per million tokens
input = 3.0
output = 15.0
)";

constexpr std::string_view k_intro = R"(# Configuration reference

<!-- Printed by the config_reference program from the settings table
(include/ralph/core/setting_names.h, src/core/config_key_table*.cpp); `make docs` writes it
again. Edit the table, not this file: the test ConfigReferenceIsCurrent fails while they differ. -->

Every setting of ralph is a key of one table, read the same way from files, environment variables,
flags, the keys of a `ralph batch` goals file and `/budget` in `ralph chat`.

## Where settings come from

Lowest to highest precedence:

1. built-in defaults (each key's default below);
2. `~/.config/ralph/config.toml` (or `$XDG_CONFIG_HOME/ralph/config.toml`);
3. `.ralph/config.toml` in the workspace;
4. `--config FILE`;
5. environment variables;
6. command-line flags.

A line of a `ralph batch` goals file sets its keys over the batch's configuration, and `/budget`
in `ralph chat` changes the budgets of the chat's goal.

## Files

Files are TOML. Top-level keys come first; a key `agent.max_steps` is `max_steps` in the
`[agent]` table:

)";

constexpr std::string_view k_values = R"(
Booleans accept `true/false`, `1/0`, `yes/no`, `on/off` from variables and flags. A list takes a
JSON array (`["make check", "make lint"]`) or a single item from a variable or flag. A repeated
flag adds to its list; its first use replaces the list from files and variables. Prices are set in
files only.

**Durations, counts and amounts.** Every time setting (`--time-budget`, `budget.max_time`,
`tools.shell_timeout`, the timeouts, `sessions prune --older-than`) takes a number of seconds
(`90`, `1.5`) or numbers with units, largest first, with no spaces: `500ms`, `90s`, `1.5m`, `2h`,
`1d`, `1h30m` (units `ms`, `s`, `m`, `h`, `d`). Files take seconds as a number (`0.5`) or a
duration as a string (`max_time = "10m"`). Whole-number settings (tokens, steps, iterations,
characters) take digits or a number with `k`, `M` or `G` that comes out whole: `200000`, `200k`,
`1.5k`, `2M`. `--cost-budget` takes US dollars, `5`, `0.50` or `$2`. A budget of 0 is no limit;
no setting takes a negative value.

An unknown key, a value of the wrong type or out of range stops ralph before anything runs, with
one line naming the file and line (or the variable, or the flag), the key, and what was expected:

```
ralph: error: /work/.ralph/config.toml:3: unknown key 'agent.max_stepz'; did you mean 'agent.max_steps'?
ralph run: --time-budget '10x': expected a duration like 90s, 1.5m, 2h (0: no limit)
```

## Environment variables

Every key but `prices` has a variable: `RALPH_` and the key in upper case with dots as underscores
(`RALPH_MODEL`, `RALPH_AGENT_MAX_STEPS`, `RALPH_VERIFY_COMMANDS`, ...). `RALPH_LOOP_ENABLED` and
`RALPH_LOOP_MAX_ITERATIONS` are the seed systems' names as well. A few keys have a second
variable, named under the key; when both are set, `RALPH_<KEY>` wins. Any other `RALPH_*`
variable is a configuration error naming the closest one, as an unknown key in a file is; only
those below and the ones ralph's own tests and scripts set (`RALPH_REQUIRE_AGENT_CLIS`,
`RALPH_REQUIRE_POSTGRES`, `RALPH_AGENT_CLIS_DIR`, `RALPH_PG_FSYNC`, `RALPH_PG_BIN`,
`RALPH_BENCH_PG_URL`, `RALPH_BUILD`) are not settings.

Besides the keys:

- `OPENAI_API_KEY` for the `openai`, `openai-responses` and `openai-compat` providers,
  `ANTHROPIC_API_KEY` for `anthropic`; `OPENAI_BASE_URL` is the server of `openai` and
  `openai-responses` when no base URL is set. Keys never enter a configuration, so they are never
  recorded, traced or logged.
- `RALPH_QUEUE_URL`: the `--queue` of `ralph worker`, `ralph batch status` and `ralph batch
  export`.
- `http_proxy` / `HTTP_PROXY`, `https_proxy` / `HTTPS_PROXY` and `no_proxy` / `NO_PROXY`, as
  libcurl reads them.

## Keys

Each key says what it takes, its default, its variables and the flags that set it. A flag is one
of `ralph run`'s unless its entry names the commands that take it; the other commands that run an
agent take most of them too (`ralph COMMAND --help` lists each command's). A goals-file key is
what a line of a `ralph batch` goals file calls the key (any dotted key works too), and a
`/budget` name what `/budget NAME=VALUE` in `ralph chat` calls it.

)";

// A help line as Markdown: plain text, nothing in it turning into emphasis or HTML.
std::string plain(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '*' || c == '<' || c == '>') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

// "Most model calls." from "most model calls".
std::string sentence(std::string_view text) {
  std::string out = plain(text);
  if (!out.empty()) {
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  }
  if (!out.empty() && out.back() != '.') {
    out += '.';
  }
  return out;
}

// A default as a file writes it: "text", 40, true, ["a", "b"].
std::string toml_value(const nlohmann::json& value) {
  if (value.is_array()) {
    std::string out = "[";
    for (const auto& item : value) {
      out += (out.size() > 1 ? ", " : "") + toml_value(item);
    }
    return out + "]";
  }
  return value.dump();
}

// "`qa`, `task`" from "qa, task".
std::string quoted_commands(std::string_view commands) {
  std::string out;
  for (std::string_view rest = commands; !rest.empty();) {
    const std::size_t comma = rest.find(", ");
    out += fmt::format("{}`{}`", out.empty() ? "" : ", ", rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
  }
  return out;
}

std::string flag_text(const SettingFlag& flag) {
  const std::string_view names = flag.names;
  const std::string_view first = ralph::flag_name(flag);
  std::string out = fmt::format("`{}", first);
  if (flag.form == FlagForm::value || flag.form == FlagForm::list_item) {
    out += fmt::format(" {}", flag.value_name);
  } else if (flag.form == FlagForm::optional) {
    out += fmt::format(" [{}]", flag.value_name);
  }
  out += '`';
  if (first.size() < names.size()) {
    out += fmt::format(" (also `{}`)", names.substr(first.size() + 1));
  }
  if (flag.form == FlagForm::list_item) {
    out += ", repeatable";
  } else if (flag.form == FlagForm::fixed) {
    out += fmt::format(", sets `{}`", flag.fixed);
  } else if (flag.form == FlagForm::optional) {
    out += fmt::format(", alone `{}`", flag.fixed);
  }
  if (!flag.commands.empty()) {
    out +=
        fmt::format(", in {}: {}", quoted_commands(flag.commands), plain(ralph::flag_help(flag)));
  }
  return out;
}

void print_key(const SettingNames& names, const nlohmann::json& defaults) {
  fmt::print("\n#### `{}`\n\n{}\n\n", names.key, sentence(names.help));
  fmt::print("- Takes: {}\n", ralph::config_key_expects(names.key));
  const auto found = defaults.find(std::string(names.key));
  if (names.key == "prices") {
    fmt::print("- Default: none\n");
  } else if (found == defaults.end()) {
    fmt::print("- Default: unset\n");
  } else {
    fmt::print("- Default: `{}`\n", toml_value(*found));
  }
  if (names.key == "prices") {
    fmt::print("- Environment: none (files only)\n");
  } else if (names.env_alias.empty()) {
    fmt::print("- Environment: `{}`\n", ralph::env_variable(names.key));
  } else {
    fmt::print("- Environment: `{}`, or `{}`\n", ralph::env_variable(names.key), names.env_alias);
  }
  if (names.flags.size() == 1) {
    fmt::print("- Flag: {}\n", flag_text(names.flags.front()));
  } else if (names.flags.size() > 1) {
    fmt::print("- Flags:\n");
    for (const SettingFlag& flag : names.flags) {
      fmt::print("  - {}\n", flag_text(flag));
    }
  }
  if (!names.goal_key.empty()) {
    fmt::print("- Goals-file key: `{}`\n", names.goal_key);
  }
  if (!names.budget_name.empty()) {
    fmt::print("- `/budget` name: `{}`\n", names.budget_name);
  }
}

std::string_view section_of(std::string_view key) {
  const auto dot = key.find('.');
  return dot == std::string_view::npos ? (key == "base_url" ? "model" : key) : key.substr(0, dot);
}

// Whether every key's section and every field of an agent has its words here; says which not.
bool complete(const nlohmann::json& presets) {
  for (const SettingNames& names : ralph::setting_names()) {
    const std::string_view section = section_of(names.key);
    if (std::none_of(std::begin(k_sections), std::end(k_sections),
                     [&](const Section& s) { return s.name == section; })) {
      std::fprintf(stderr, "config_reference: section '%.*s' has no sentence\n",
                   static_cast<int>(section.size()), section.data());
      return false;
    }
  }
  const nlohmann::json& preset = presets.begin().value();
  for (const auto& item : preset.items()) {
    const std::string& field = item.key();
    if (std::none_of(std::begin(k_agent_fields), std::end(k_agent_fields),
                     [&](const auto& known) { return known.first == field; })) {
      std::fprintf(stderr, "config_reference: agents field '%s' has no description\n",
                   field.c_str());
      return false;
    }
  }
  return preset.size() == std::size(k_agent_fields);
}

// The `[agents.NAME]` tables: their fields, and the built-in presets as a file would write them.
void print_agents(const nlohmann::json& presets) {
  fmt::print("\n## `[agents.NAME]`\n\n"
             "The agent CLIs `--agent NAME` (`agent.cli`) runs. A table `[agents.NAME]` in a file "
             "changes the fields it gives of a built-in preset, or adds an agent of that name. "
             "Fields:\n\n");
  std::vector<std::string> formats;
  for (const auto& entry : ralph::k_cli_format_names) {
    formats.emplace_back(entry.name);
  }
  for (const auto& [field, about] : k_agent_fields) {
    fmt::print("- `{}`: {}{}\n", field, about,
               field == "format" ? fmt::format(": {}", fmt::join(formats, ", ")) : "");
  }
  fmt::print("\nIn `command` and `resume`, `{{prompt}}` is the prompt and `{{prompt_file}}` a file "
             "holding it (without either, the prompt goes to the CLI's stdin), `{{model}}` the "
             "model, `{{session}}` the CLI's own session id, `{{ralph_session}}` ralph's, and "
             "`{{budget_usd}}` what is left of the cost budget.\n\n"
             "The built-in presets:\n\n```toml\n");
  bool first = true;
  for (const auto& [name, fields] : presets.items()) {
    fmt::print("{}[agents.{}]\n", first ? "" : "\n", name);
    first = false;
    for (const auto& [field, about] : k_agent_fields) {
      fmt::print("{} = {}\n", field, toml_value(fields.at(std::string(field))));
    }
  }
  fmt::print("```\n");
}

// The `[[notify]]` entries: their fields and what they send (docs/manual/notifications.md has the
// event JSON and how to verify a signature).
void print_notify() {
  const ralph::NotifyTarget defaults;
  std::vector<std::string> all;
  for (const auto& entry : ralph::k_notify_event_names) {
    all.emplace_back(entry.name);
  }
  std::vector<std::string> by_default;
  for (const ralph::NotifyEvent event : defaults.events) {
    by_default.emplace_back(ralph::to_string(event));
  }
  fmt::print(
      "\n## `[[notify]]`\n\n"
      "Where ralph tells of a run's or a batch's end (`run`, `batch`, `worker`, `serve`). Each "
      "`[[notify]]` entry of every file read is one target; entries add up across files, none "
      "replaces another. They are never recorded with a session. Fields:\n\n"
      "- `url`: an http:// or https:// webhook: the event JSON is POSTed to it\n"
      "- `command`: or a program and its arguments, as a list, run without a shell: the event "
      "JSON on its stdin\n"
      "- `events`: the events sent, of {}; default: {}\n"
      "- `secret_env`: the environment variable holding the webhook's HMAC-SHA256 key; the "
      "deliveries carry `X-Ralph-Signature-256` (webhooks only)\n"
      "- `headers`: a table of headers added to each webhook request (webhooks only)\n"
      "- `timeout`: one try's limit, and the longest ralph waits at its exit for the entry's "
      "deliveries under way; from 1s to 5m, default {}s\n\n"
      "See [notifications](../manual/notifications.md) for the event JSON, the headers and "
      "retries.\n",
      fmt::join(all, ", "), fmt::join(by_default, ", "),
      std::chrono::duration_cast<std::chrono::seconds>(defaults.timeout).count());
}

// The `[mcp.servers.NAME]` tables: their fields (docs/manual/mcp.md says what the agent gets).
void print_mcp_servers() {
  const ralph::McpServerSettings defaults;
  const auto seconds = [](std::chrono::milliseconds d) {
    return std::chrono::duration_cast<std::chrono::seconds>(d).count();
  };
  fmt::print(
      "\n## `[mcp.servers.NAME]`\n\n"
      "An MCP server whose tools the built-in agent gets as `mcp__NAME__TOOL`, with Codex's key "
      "names; a workspace's `.mcp.json` (Claude Code's file) adds its servers after these. A "
      "table has `command` or `url`. Fields:\n\n"
      "- `command`, `args`: a stdio server: the program (looked up in PATH) and its arguments, "
      "run without a shell in the workspace\n"
      "- `env`: variables set for it (nothing else of ralph's environment is, but PATH and "
      "HOME); values written out here are not recorded with the session, `${{VAR}}` references "
      "are\n"
      "- `env_vars`: variables passed through from ralph's environment, by name\n"
      "- `cwd`: its working directory (relative: under the workspace)\n"
      "- `url`: a streamable HTTP server instead\n"
      "- `bearer_token_env_var`: the variable holding the token sent as `Authorization: "
      "Bearer`\n"
      "- `http_headers` (or `headers`): headers sent with each request\n"
      "- `enabled`: `false` declares it without starting it; default true\n"
      "- `required`: a server that cannot start stops the run before the first model call; "
      "default false\n"
      "- `shareable`: one process for every session of a batch or a server; default false\n"
      "- `startup_timeout_sec`: to start and list its tools; default {}\n"
      "- `tool_timeout_sec`: the longest one call may take; default {}\n"
      "- `enabled_tools`, `disabled_tools`: which of its tools the agent gets (empty "
      "`enabled_tools`: all)\n\n"
      "See [MCP both ways](../manual/mcp.md).\n",
      seconds(defaults.startup_timeout), seconds(defaults.tool_timeout));
}

} // namespace

int main() {
  ralph::Config example;
  if (const auto taken = ralph::apply_config_toml(example, k_example, "example"); !taken) {
    std::fprintf(stderr, "config_reference: the example is refused: %s\n",
                 taken.error().message.c_str());
    return 1;
  }
  const nlohmann::json defaults = nlohmann::json::parse(ralph::config_to_json(ralph::Config()));
  if (!complete(defaults.at("agents"))) {
    return 1;
  }
  fmt::print("{}```toml\n{}```\n{}", k_intro, k_example, k_values);
  std::vector<std::string> contents;
  for (const Section& section : k_sections) {
    contents.push_back(fmt::format("[{0}](#{0})", section.name));
  }
  fmt::print("By section: {}; and [`[agents.NAME]`](#agentsname), the agent CLIs; "
             "[`[[notify]]`](#notify), notifications; [`[mcp.servers.NAME]`](#mcpserversname), MCP "
             "servers.\n",
             fmt::join(contents, ", "));
  for (const Section& section : k_sections) {
    fmt::print("\n### {}\n\n{}\n",
               section.name == "model" ? std::string("Model") : fmt::format("`[{}]`", section.name),
               section.about);
    for (const SettingNames& names : ralph::setting_names()) {
      if (section_of(names.key) == section.name) {
        print_key(names, defaults);
      }
    }
  }
  print_agents(defaults.at("agents"));
  print_notify();
  print_mcp_servers();
  return 0;
}
