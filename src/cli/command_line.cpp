// The only file that includes CLI11 (it costs seconds of compile time per file).
#include "cli/command_line.h"

#include "cli/session_view.h"
#include "cli/usage_hint.h"

#include "ralph/core/config.h"
#include "ralph/core/quantity.h"
#include "ralph/core/setting_names.h"
#include "ralph/core/text.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace ralph::cli {
namespace {

// What a command's --help says it exits with: only the codes it can return (a command inherits
// its parent's footer unless it sets its own). docs/manual/exit-codes.md says the same.
constexpr const char* k_run_exit_codes =
    "Exit codes: 0 completed, 1 failed, 2 usage or configuration error, 3 budget exhausted, 4 "
    "blocked, 5 stalled, 130 interrupted.";
constexpr const char* k_sessions_exit_codes =
    "Exit codes: 0 done, 1 the session store (or a file written) could not be read or written, "
    "2 usage or configuration error (an unknown id among them).";
constexpr const char* k_queue_exit_codes =
    "Exit codes: 0 done, 1 the queue could not be reached (or the file written), 2 usage or "
    "configuration error.";

// A path given as "" (a script's unset variable) names nothing: refused, where it would otherwise
// mean the default or no file without a word. (Lists of commands and globs are refused by their
// keys, as in files.)
CLI::Validator names_something() {
  return {[](const std::string& value) {
            return trim(value).empty() ? std::string("an empty value names nothing")
                                       : std::string();
          },
          "", "names something"};
}

// Declares the flags that set configuration keys, by name, from the settings table
// (ralph/core/setting_names.h): its row gives each flag's key, form, value name and help. Values
// become overrides checked with the key table, so flags, files and variables fail the same way.
class SettingFlags {
public:
  // Which of a name's flags a command means, and its own help where it means something narrower.
  struct Use {
    std::string_view key;         // when the name sets two keys (--max-steps)
    std::optional<FlagForm> form; // when it sets one key in two forms (--judge)
    std::string_view help;        // instead of the table's
  };

  SettingFlags(CLI::App& command, RunArgs& args) : m_command(command), m_args(args) {}

  void add(std::initializer_list<std::string_view> names) {
    for (const std::string_view name : names) {
      add(name);
    }
  }

  void add(std::string_view name, const Use& use = {}) {
    const SettingFlag* flag = find_flag(name, use.key, use.form);
    if (flag == nullptr) {
      // A mistake in this file, which every test that parses a command line catches.
      throw std::logic_error(
          fmt::format("the settings table has no one flag {} {}", name, use.key));
    }
    const std::string names(flag->names);
    const std::string help(use.help.empty() ? flag_help(*flag) : use.help);
    const std::string value_name(flag->value_name);
    // Captures the arguments and the table's row (which lives as long as the program), not this
    // helper: callbacks run after it is gone.
    const auto set = [args = &m_args, flag](std::string value, bool append) {
      args->overrides.push_back(
          {std::string(flag->key), std::move(value), std::string(flag_name(*flag)), append});
    };
    switch (flag->form) {
    case FlagForm::value:
      m_command
          .add_option_function<std::string>(
              names, [set](const std::string& value) { set(value, false); }, help)
          ->type_name(value_name);
      return;
    case FlagForm::list_item:
      // Every use of the flag, in order: the first replaces the configured list.
      m_command
          .add_option_function<std::vector<std::string>>(
              names,
              [set](const std::vector<std::string>& values) {
                for (std::size_t i = 0; i < values.size(); ++i) {
                  set(values[i], i > 0);
                }
              },
              help)
          ->type_name(value_name)
          ->allow_extra_args(false);
      return;
    case FlagForm::fixed:
      m_command.add_flag_callback(
          names, [set, flag] { set(std::string(flag->fixed), false); }, help);
      return;
    case FlagForm::optional:
      m_command
          .add_option_function<std::string>(
              names,
              [set, flag](const std::string& value) {
                set(value.empty() ? std::string(flag->fixed) : value, false);
              },
              help)
          ->type_name("[" + value_name + "]")
          ->expected(0, 1);
      return;
    }
  }

private:
  CLI::App& m_command;
  RunArgs& m_args;
};

// Where sessions are recorded, for every command that opens the store.
void add_store_flag(CLI::App& command, RunArgs& args) {
  SettingFlags(command, args).add("--store");
}

// The extra configuration file above the workspace's, for every command that reads settings.
void add_config_option(CLI::App& command, RunArgs& args) {
  command
      .add_option("--config", args.config_file,
                  "an extra configuration file, above the workspace one")
      ->type_name("FILE")
      ->check(names_something());
}

void add_workspace_option(CLI::App& command, RunArgs& args, const std::string& help) {
  command.add_option("--workspace,-w", args.workspace, help)
      ->type_name("DIR")
      ->check(names_something());
}

// What --max-steps bounds: the ReAct agent's attempt, or a document's exploration (rlm).
enum class StepsOf { agent, exploration };

void add_agent_options(CLI::App& command, RunArgs& args, StepsOf steps = StepsOf::agent) {
  SettingFlags flags(command, args);
  flags.add({"--model", "--base-url"});
  flags.add("--max-steps", {.key = steps == StepsOf::agent ? "agent.max_steps" : "rlm.max_steps"});
  flags.add({"--max-tokens", "--temperature", "--no-stream"});
  add_workspace_option(command, args,
                       "directory the tools work in (default: the current directory)");
  add_config_option(command, args);
  command.add_flag("--json", args.json, "print only a JSON result object on stdout");
  command.add_flag("--quiet,-q", args.quiet, "no progress on stderr");
}

// An external agent CLI as the inner loop instead of the built-in agent.
void add_external_agent_options(CLI::App& command, RunArgs& args) {
  SettingFlags(command, args)
      .add({"--agent", "--agent-model", "--agent-arg", "--agent-cmd", "--agent-timeout",
            "--agent-idle-timeout"});
}

// The budgets of a run under the outer loop and where it is recorded.
void add_bounds_and_records(CLI::App& command, RunArgs& args) {
  SettingFlags flags(command, args);
  flags.add({"--max-iterations", "--token-budget", "--cost-budget", "--time-budget"});
  command.add_option("--events", args.events_file, "write every event to FILE as NDJSON")
      ->type_name("FILE")
      ->check(names_something());
  command
      .add_option("--out", args.out_dir,
                  "after each attempt, write DIR/iter-XX.json, DIR/sessions/ID/iter-XX.json and "
                  "DIR/session-index.json")
      ->type_name("DIR")
      ->check(names_something());
  flags.add({"--no-store", "--store"});
}

// The verifiers `ralph run` and `ralph hook` share.
void add_verifier_options(CLI::App& command, RunArgs& args) {
  SettingFlags flags(command, args);
  flags.add({"--verify-cmd", "--verify-exec"});
  flags.add("--judge", {.form = FlagForm::optional});
  flags.add({"--judge-base-url", "--protect", "--junit", "--reruns", "--quorum", "--must-match",
             "--must-not-match"});
}

// What the loop runs as: `--heartbeat` for `ralph run`; `ralph heartbeat` always is one and
// verifies it unless told not to.
enum class HeartbeatFlags { run, heartbeat_command };

void add_loop_options(CLI::App& command, RunArgs& args,
                      HeartbeatFlags heartbeat = HeartbeatFlags::run) {
  add_verifier_options(command, args);
  SettingFlags flags(command, args);
  flags.add({"--verifier-first", "--marker", "--feedback", "--trigger", "--keyword"});
  if (heartbeat == HeartbeatFlags::run) {
    flags.add("--heartbeat");
    flags.add("--verify-heartbeat", {.form = FlagForm::fixed});
  } else {
    flags.add("--verify-heartbeat", {.form = FlagForm::optional});
    flags.add("--no-verify-heartbeat");
  }
  flags.add({"--progress-interval", "--no-verify-final"});
  add_bounds_and_records(command, args);
}

// `qa` and `task`: the document, the query, and the loop options that apply to them.
void add_document_options(CLI::App& command, RunArgs& args) {
  command.add_option("--doc,-d", args.document, "the document to work on (any size)")
      ->type_name("FILE")
      ->check(names_something())
      ->required();
  command.add_option("--query,-Q", args.goal, "the question or task")->required();
  add_agent_options(command, args, StepsOf::exploration);
  SettingFlags flags(command, args);
  flags.add("--judge", {.form = FlagForm::value});
  flags.add({"--judge-base-url", "--match-level", "--sub-model", "--max-sub-queries"});
  add_bounds_and_records(command, args);
}

// The commands the parser went into, from `ralph` down.
std::vector<const CLI::App*> command_chain(const CLI::App& app) {
  std::vector<const CLI::App*> chain{&app};
  for (;;) {
    const std::vector<CLI::App*> entered = chain.back()->get_subcommands();
    if (entered.empty()) {
      return chain;
    }
    chain.push_back(entered.front());
  }
}

// "ralph sessions list": the command as a person types it, for the start of a message.
std::string command_words(const std::vector<const CLI::App*>& chain) {
  std::string words;
  for (const CLI::App* command : chain) {
    words += words.empty() ? command->get_name() : " " + command->get_name();
  }
  return words;
}

std::vector<std::string> subcommand_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
    names.insert(names.end(), sub->get_aliases().begin(), sub->get_aliases().end());
  }
  return names;
}

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) {
      names.push_back("--" + name);
    }
    for (const std::string& name : option->get_snames()) {
      names.push_back("-" + name);
    }
  }
  return names;
}

// The first word of the command line that no command took, explained where it was typed;
// nullopt when every word was taken.
std::optional<std::string> explain_leftover(const CLI::App& app) {
  std::vector<const CLI::App*> chain;
  for (const CLI::App* command : command_chain(app)) {
    chain.push_back(command);
    const std::vector<std::string> left = command->remaining();
    if (left.empty()) {
      continue;
    }
    const std::string words = command_words(chain);
    const std::string& first = left.front();
    if (first.size() > 1 && first.front() == '-') {
      return unknown_option(words, first, option_names(*command));
    }
    if (const auto commands = subcommand_names(*command); !commands.empty()) {
      return unknown_command(words, first, commands);
    }
    // `ralph run fix the bug` is the likeliest way to get here.
    const bool takes_goal = command->get_option_no_throw("goal") != nullptr;
    return unexpected_argument(words, first,
                               takes_goal ? "the goal is one argument: put it in quotes" : "");
  }
  return std::nullopt;
}

// Any other parse error, as one line in the command it happened in.
std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& error) {
  const std::vector<const CLI::App*> chain = command_chain(app);
  const std::string words = command_words(chain);
  if (const auto commands = subcommand_names(*chain.back()); !commands.empty()) {
    return usage_problem(words,
                         fmt::format("a command is required ({})", fmt::join(commands, ", ")));
  }
  return usage_problem(words, error.what());
}

// Values kept as typed until parsing is done, then checked and converted by check_values.
struct TypedValues {
  std::string parallel_attempts;     // run
  std::string older_than;            // sessions prune
  std::string every;                 // heartbeat
  std::string lease;                 // worker
  std::vector<std::string> statuses; // sessions list
  std::vector<std::string> kinds;    // sessions list
  std::string limit;                 // sessions list
};

// `sessions list --status/--kind/--limit` into the typed filter; a problem names the flag, the
// value and what it takes.
std::optional<std::string> check_session_filter(const std::string& words, const TypedValues& typed,
                                                store::SessionFilter& filter) {
  for (const std::string& name : typed.statuses) {
    if (name == "stopped") {
      filter.stopped = true;
    } else if (name == "verified") {
      filter.verified = true;
    } else if (const auto status = value_of(k_status_names, name)) {
      filter.statuses.push_back(*status);
    } else {
      return fmt::format("{}: --status '{}': expected one of {}", words, name,
                         fmt::join(status_filter_names(), ", "));
    }
  }
  for (const std::string& name : typed.kinds) {
    const auto kind = value_of(store::k_session_kind_names, name);
    if (!kind) {
      return fmt::format("{}: --kind '{}': expected one of {}", words, name,
                         fmt::join(kind_filter_names(), ", "));
    }
    filter.kinds.push_back(*kind);
  }
  if (!typed.limit.empty()) {
    const std::optional<int> limit = parse_int(typed.limit);
    if (!limit || *limit < 1) {
      return fmt::format("{}: --limit '{}': expected a whole number, 1 or more", words,
                         typed.limit);
    }
    filter.limit = *limit;
  }
  return std::nullopt;
}

// The command line being declared: the app, what parsing fills in, and each command's name.
struct Parser {
  CLI::App& app;
  ParsedCommand& parsed;
  TypedValues typed;
  // Each command with its name, parents first, to tell which one the parser went into.
  std::vector<std::pair<const CLI::App*, CommandName>> commands;

  CLI::App* add(CLI::App& parent, std::string name, std::string description, CommandName as) {
    CLI::App* command = parent.add_subcommand(std::move(name), std::move(description));
    commands.emplace_back(command, as);
    return command;
  }
};

// What parsing cannot see: an empty goal or query, and flag values the configuration keys
// reject (checked here so the message names the flag as typed). Sets the values kept as typed.
std::optional<std::string> check_values(const std::string& words, const TypedValues& typed,
                                        ParsedCommand& parsed) {
  if (parsed.name == CommandName::run && !typed.parallel_attempts.empty()) {
    // More would mostly wait on each other: each attempt is a whole agent, its tools and its
    // verifiers, and each a worktree on disk.
    const std::optional<int> n = parse_int(typed.parallel_attempts);
    if (!n || *n < 1 || *n > k_max_parallel_attempts) {
      return fmt::format("{}: --parallel-attempts '{}': expected a whole number from 1 to {}",
                         words, typed.parallel_attempts, k_max_parallel_attempts);
    }
    parsed.run.parallel_attempts = *n;
  }
  if (parsed.name == CommandName::heartbeat) {
    if (!typed.every.empty()) {
      const auto interval = parse_duration(typed.every);
      if (!interval || interval->count() <= 0) {
        return fmt::format("{}: --every '{}': expected {}, more than 0", words, typed.every,
                           k_duration_forms);
      }
      parsed.heartbeat.every = *interval;
    } else if (parsed.heartbeat.ticks > 1) {
      return usage_problem(words, "--ticks needs --every (without it there is one tick)");
    }
  }
  if (parsed.name == CommandName::sessions_list) {
    if (parsed.sessions.heartbeat &&
        (!typed.statuses.empty() || !typed.kinds.empty() || !typed.limit.empty())) {
      return usage_problem(words, "--heartbeat lists the heartbeat ticks; --status, --kind and "
                                  "--limit are for the list of sessions");
    }
    if (auto problem = check_session_filter(words, typed, parsed.sessions.filter)) {
      return problem;
    }
  }
  if (parsed.name == CommandName::sessions_prune) {
    const auto age = parse_duration(typed.older_than);
    if (!age) {
      return fmt::format("{}: --older-than '{}': expected {} or 30d", words, typed.older_than,
                         k_duration_forms);
    }
    parsed.sessions.older_than = *age;
  }
  if (parsed.name == CommandName::batch && parsed.batch.goals_file.empty()) {
    return usage_problem(words, "the goals file is required");
  }
  if (parsed.name == CommandName::batch) {
    const std::pair<const std::string*, const char*> budgets[] = {
        {&parsed.batch.token_budget, "budget.max_tokens"},
        {&parsed.batch.cost_budget, "budget.max_cost_usd"},
        {&parsed.batch.time_budget, "budget.max_time"}};
    const char* flags[] = {"--batch-token-budget", "--batch-cost-budget", "--batch-time-budget"};
    for (std::size_t i = 0; i < std::size(budgets); ++i) {
      const std::string& value = *budgets[i].first;
      if (value.empty()) {
        continue;
      }
      if (const auto reason = check_config_text(budgets[i].second, value)) {
        return fmt::format("{}: {} '{}': {}", words, flags[i], value, *reason);
      }
    }
  }
  const bool document = parsed.name == CommandName::qa || parsed.name == CommandName::task;
  if ((parsed.name == CommandName::run || document) && trim(parsed.run.goal).empty()) {
    return usage_problem(words, document ? "--query is empty; ask a question or give a task"
                                         : "the goal is empty; say what to do, in words");
  }
  for (const ConfigOverride& flag : parsed.run.overrides) {
    if (const auto reason = check_config_text(flag.key, flag.value)) {
      return fmt::format("{}: {} '{}': {}", words, flag.flag, flag.value, *reason);
    }
  }
  if (parsed.name == CommandName::worker && !typed.lease.empty()) {
    const auto duration = parse_duration(typed.lease);
    if (!duration || duration->count() < 300) {
      return fmt::format("{}: --lease '{}': expected {}, at least 0.3s", words, typed.lease,
                         k_duration_forms);
    }
    parsed.worker.lease = *duration;
  }
  return std::nullopt;
}

void add_run(Parser& p) {
  CLI::App* run = p.add(p.app, "run",
                        "the built-in agent (or an agent CLI: --agent) works on GOAL in a "
                        "workspace, verified when verifiers are given",
                        CommandName::run);
  run->footer(k_run_exit_codes);
  run->add_option("goal", p.parsed.run.goal, "what to do, in words")->required();
  add_agent_options(*run, p.parsed.run);
  add_external_agent_options(*run, p.parsed.run);
  add_loop_options(*run, p.parsed.run);
  run->add_option("--parallel-attempts", p.typed.parallel_attempts,
                  "best of N: N attempts at once, each in its own git worktree (or copy) under "
                  ".ralph/attempts/; the verifiers rank them and the best passing one is applied "
                  "(a commit on the current branch, or files); ties: fewer changed lines, then "
                  "lower cost (1 to 16)")
      ->type_name("N");
}

void add_chat(Parser& p) {
  RunArgs& args = p.parsed.run;
  CLI::App* chat = p.add(p.app, "chat",
                         "an interactive session with the agent; /goal TEXT works on TEXT until "
                         "the verifiers pass (reads one line per turn when stdin is not a "
                         "terminal)",
                         CommandName::chat);
  chat->add_option("--resume", p.parsed.chat.resume,
                   "go on with a recorded chat: its "
                   "conversation, goal and budgets")
      ->type_name("ID");
  add_agent_options(*chat, args);
  add_external_agent_options(*chat, args);
  add_verifier_options(*chat, args);
  SettingFlags(*chat, args)
      .add("--marker",
           {.help = "the completion marker of goals (default <promise>DONE</promise>)"});
  add_bounds_and_records(*chat, args);
  chat->footer("Exit codes: 0 left (a goal's outcome is said in the chat, not here), 1 could not "
               "start (the session store, a record to resume), 2 usage or configuration error, "
               "130 ended by SIGTERM.");
  // A chat has no one result to print, records itself in the store, and shows what happens.
  for (const char* name : {"--json", "--events", "--out", "--no-store"}) {
    chat->remove_option(chat->get_option(name));
  }
}

void add_documents_and_demo(Parser& p) {
  CLI::App* qa = p.add(p.app, "qa",
                       "grounded QA: answer bullets with verbatim quotes from the document, "
                       "checked and judged",
                       CommandName::qa);
  qa->footer(k_run_exit_codes);
  add_document_options(*qa, p.parsed.run);
  CLI::App* task = p.add(p.app, "task",
                         "task mode: a reader explores the document, a reasoner writes the output "
                         "and the memory file, a judge checks it",
                         CommandName::task);
  task->footer(k_run_exit_codes);
  add_document_options(*task, p.parsed.run);
  SettingFlags(*task, p.parsed.run).add("--mem-file");

  CLI::App* demo =
      p.add(p.app, "demo", "a self-contained run on a scripted stand-in model (no key, no network)",
            CommandName::demo);
  demo->footer(k_run_exit_codes);
  demo->add_flag("--json", p.parsed.run.json, "print only a JSON result object on stdout");
  demo->add_option("--events", p.parsed.run.events_file, "write every event to FILE as NDJSON")
      ->type_name("FILE")
      ->check(names_something());
  demo->add_flag("--quiet,-q", p.parsed.run.quiet, "no progress on stderr");
}

// The workspace, configuration and store of a `sessions` command.
void add_store_options(CLI::App& command, RunArgs& args) {
  add_workspace_option(command, args,
                       "the workspace whose sessions to use (default: the current directory)");
  add_config_option(command, args);
  add_store_flag(command, args);
}

void add_sessions(Parser& p) {
  ParsedCommand& parsed = p.parsed;
  CLI::App* sessions = p.app.add_subcommand(
      "sessions", "the recorded sessions of a workspace, or of the store --store names");
  sessions->require_subcommand(1);
  sessions->footer(k_sessions_exit_codes); // `resume` has the run's
  CLI::App* list = p.add(*sessions, "list", "id, goal, status, attempts, tokens, cost, age",
                         CommandName::sessions_list);
  add_store_options(*list, parsed.run);
  list->add_flag("--json", parsed.run.json, "the sessions as JSON");
  list->add_flag("--heartbeat", parsed.sessions.heartbeat,
                 "recent `ralph heartbeat` ticks only: start, status, verified, duration, answer, "
                 "and a total");
  list->add_option("--status", p.typed.statuses,
                   fmt::format("only sessions with this status, repeated or comma-separated for "
                               "several: {} (stopped: active, its process gone; verified: "
                               "completed with a verified answer)",
                               fmt::join(status_filter_names(), ", ")))
      ->delimiter(',');
  list->add_option("--kind", p.typed.kinds,
                   fmt::format("only sessions of this kind, repeated or comma-separated for "
                               "several: {}",
                               fmt::join(kind_filter_names(), ", ")))
      ->delimiter(',');
  list->add_option("--limit", p.typed.limit, "the newest N sessions only");
  CLI::App* show =
      p.add(*sessions, "show", "every attempt, tool call, verdict and feedback of a session",
            CommandName::sessions_show);
  show->add_option("id", parsed.sessions.id, "the session id (or a unique prefix)")->required();
  add_store_options(*show, parsed.run);
  show->add_flag("--json", parsed.run.json, "the whole record as JSON");
  CLI::App* resume =
      p.add(*sessions, "resume", "continue a session where it stopped, its budgets carried on",
            CommandName::sessions_resume);
  resume->footer(k_run_exit_codes);
  resume->add_option("id", parsed.sessions.id, "the session id (or a unique prefix)")->required();
  resume->add_flag("--yes,-y", parsed.sessions.yes, "do not ask before continuing");
  add_store_options(*resume, parsed.run);
  SettingFlags flags(*resume, parsed.run);
  flags.add("--max-iterations",
            {.help = "raise the attempts allowed (needed to resume a session that used them all)"});
  flags.add("--max-steps", {.key = "agent.max_steps", .help = "most model calls in one attempt"});
  flags.add("--base-url", {.help = "the model's server, when it moved"});
  flags.add("--token-budget", {.help = "raise the token budget: 200k, 2M"});
  flags.add("--cost-budget", {.help = "raise the cost budget"});
  flags.add("--time-budget", {.help = "raise the time budget: 90s, 1.5m, 2h"});
  resume->add_flag("--json", parsed.run.json, "print only a JSON result object on stdout");
  resume->add_flag("--quiet,-q", parsed.run.quiet, "no progress on stderr");
  resume->add_option("--events", parsed.run.events_file, "write every event to FILE as NDJSON")
      ->type_name("FILE")
      ->check(names_something());
  resume->add_option("--out", parsed.run.out_dir, "write trace files under DIR")
      ->type_name("DIR")
      ->check(names_something());
  CLI::App* exported =
      p.add(*sessions, "export", "write a session's trace files", CommandName::sessions_export);
  exported->add_option("id", parsed.sessions.id, "the session id (or a unique prefix)")->required();
  exported->add_option("--out", parsed.sessions.out_dir, "the folder to write them to")
      ->type_name("DIR")
      ->check(names_something())
      ->required();
  add_store_options(*exported, parsed.run);
  CLI::App* rm =
      p.add(*sessions, "rm", "delete a session and its record", CommandName::sessions_rm);
  rm->add_option("id", parsed.sessions.id, "the session id (or a unique prefix)")->required();
  add_store_options(*rm, parsed.run);
  CLI::App* prune = p.add(*sessions, "prune", "delete sessions not updated for a while",
                          CommandName::sessions_prune);
  prune->add_option("--older-than", p.typed.older_than, "a duration: 30d, 12h, 90m, 1h30m")
      ->type_name("AGE")
      ->required();
  add_store_options(*prune, parsed.run);
  CLI::App* copy = p.add(*sessions, "copy",
                         "copy sessions, with everything recorded about them, to another store "
                         "(SQLite or PostgreSQL)",
                         CommandName::sessions_copy);
  copy->add_option("ids", parsed.sessions.ids, "the sessions (ids or unique prefixes; none: all)");
  copy->add_option("--to", parsed.sessions.copy_to,
                   "the store to copy to: postgresql://USER:PASSWORD@HOST/DB or a SQLite file")
      ->type_name("URL")
      ->check(names_something())
      ->required();
  copy->add_flag("--replace", parsed.sessions.replace,
                 "replace sessions already there (default: skip them, saying so)");
  add_store_options(*copy, parsed.run);
}

// `hook install|uninstall` and `mcp install|uninstall`: which agent CLI, and whose settings
// (`files`: what each scope means, for the help).
struct InstallFiles {
  const char* user;
  const char* project;
};

void add_install_options(CLI::App& command, std::string& target, bool& user, bool& project,
                         RunArgs& run, InstallFiles files) {
  command.add_option("agent", target, "claude, codex or gemini")
      ->required()
      ->check(CLI::IsMember({"claude", "codex", "gemini"}));
  CLI::Option* user_flag = command.add_flag("--user", user, files.user);
  command.add_flag("--project", project, files.project)->excludes(user_flag);
  add_workspace_option(command, run, "the project (default: the current directory)");
  command.footer("Exit codes: 0 done (or nothing to do), 2 usage error or a settings file that "
                 "cannot be read (left as it was), 1 the file could not be written.");
}

void add_install_options(CLI::App& command, ParsedCommand& parsed) {
  add_install_options(
      command, parsed.hook.target, parsed.hook.user, parsed.hook.project, parsed.run,
      {.user = "the user's settings (~/.claude/settings.json, ~/.codex/hooks.json, "
               "~/.gemini/...)",
       .project = "the project's settings (.claude/settings.json, .codex/hooks.json, "
                  ".gemini/settings.json; the default)"});
}

void add_hook(Parser& p) {
  ParsedCommand& parsed = p.parsed;
  CLI::App* hook = p.add(p.app, "hook",
                         "ralph's verifiers as the Stop hook of Claude Code, Codex or Gemini CLI: "
                         "reads the hook payload on stdin, lets the agent stop or sends it back "
                         "with the failures",
                         CommandName::hook);
  hook->footer("Exit codes: 0 decided (the JSON on stdout says block, or nothing lets the stop "
               "through); 1 could not verify (said on stderr; the agent may stop). Never 2, "
               "which the agent CLIs read as a block.");
  hook->add_option("--agent", parsed.hook.agent,
                   "the CLI that runs the hook (default: told from the payload)")
      ->type_name("AGENT")
      ->check(CLI::IsMember({"claude", "codex", "gemini"}));
  add_verifier_options(*hook, parsed.run);
  SettingFlags flags(*hook, parsed.run);
  flags.add("--max-iterations",
            {.help = "most verified stops in a round before a failing one is let through (default "
                     "3: the agent is sent back twice)"});
  flags.add("--max-time");
  add_config_option(*hook, parsed.run);
  add_store_flag(*hook, parsed.run);
  add_install_options(
      *p.add(*hook, "install",
             "add `ralph hook` as the Stop hook of claude, codex or gemini (idempotent)",
             CommandName::hook_install),
      parsed);
  add_install_options(*p.add(*hook, "uninstall",
                             "remove ralph's hook, and nothing else, from the settings",
                             CommandName::hook_uninstall),
                      parsed);
}

void add_heartbeat(Parser& p) {
  ParsedCommand& parsed = p.parsed;
  CLI::App* heartbeat =
      p.add(p.app, "heartbeat",
            "run the agent on the tasks in the workspace's HEARTBEAT.md: one tick (for cron or a "
            "timer) or --every DURATION in the foreground; HEARTBEAT_OK when nothing is due",
            CommandName::heartbeat);
  heartbeat->footer(
      "Each tick is a verified run recorded as a session (`ralph sessions list --heartbeat`); "
      "ticks never overlap (.ralph/heartbeat.lock).\nExit codes: one tick: the run's (0 "
      "completed, 1 failed, 3 budget exhausted, 4 blocked, 5 stalled); a tick skipped because "
      "another is running: 0; --every: 0 when every tick completed, else the code of the last "
      "tick that did not; 2 usage or configuration error (no HEARTBEAT.md, no judge while "
      "verifying); 130 interrupted.");
  heartbeat
      ->add_option("--every", p.typed.every, "a tick this often, in the foreground: 30m, 1.5h, 90s")
      ->type_name("DURATION");
  heartbeat->add_option("--ticks", parsed.heartbeat.ticks, "stop after N ticks (with --every)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  heartbeat->add_flag("--wait", parsed.heartbeat.wait,
                      "when another tick is running, wait for it, then run (default: skip)");
  add_agent_options(*heartbeat, parsed.run);
  add_external_agent_options(*heartbeat, parsed.run);
  add_loop_options(*heartbeat, parsed.run, HeartbeatFlags::heartbeat_command);
}

// `batch status` and `batch export`, and `worker`: the queue they read.
void add_queue_option(CLI::App& command, std::string& queue) {
  command.add_option("--queue", queue, "the PostgreSQL queue (postgresql://...)")
      ->type_name("URL")
      ->envname("RALPH_QUEUE_URL")
      ->required();
}

void add_batch(Parser& p) {
  ParsedCommand& parsed = p.parsed;
  CLI::App* batch = p.add(p.app, "batch",
                          "many goals at once in one process, each in its own git worktree (or "
                          "copy) under .ralph/batch/: one JSON object per line of FILE; run it "
                          "again to resume. With --queue URL: into a PostgreSQL queue for `ralph "
                          "worker` on any machine",
                          CommandName::batch);
  batch->footer("Goal keys: id, goal, workspace, repo, ref, and the run flags that set a "
                "configuration key, in snake case (verify, model, max_iterations, token_budget, "
                "...), or any dotted configuration key (man ralph; docs/manual/batch.md).\n"
                "Exit codes: 0 every goal completed; 1 some goal ended otherwise (see the "
                "results); 2 usage error or bad lines in FILE (nothing run); 3 a batch budget ran "
                "out first; 130 interrupted. Run the same command again to go on.");
  // Required unless a command of `batch` is given: checked in check_values.
  batch->add_option("goals", parsed.batch.goals_file, "the goals file (JSON lines)")
      ->type_name("FILE")
      ->check(names_something());
  batch
      ->add_option("--queue", parsed.batch.queue,
                   "enqueue the goals in this PostgreSQL queue (postgresql://...) for `ralph "
                   "worker`s on any machine, instead of running them here; idempotent by goal id")
      ->type_name("URL");
  batch
      ->add_option("--name", parsed.batch.name,
                   "the queued batch's name (default: the file's name and a hash of its path)")
      ->type_name("NAME");
  batch->add_option("--concurrency,-j", parsed.batch.concurrency, "goals running at once")
      ->type_name("N")
      ->check(CLI::Range(1, 4096));
  batch
      ->add_option("--results", parsed.batch.results_file,
                   "one line per finished goal (default .ralph/batch/BATCH/results.jsonl)")
      ->type_name("FILE")
      ->check(names_something());
  batch
      ->add_option("--batch-token-budget", parsed.batch.token_budget,
                   "most tokens all goals may spend together: 2M")
      ->type_name("N");
  batch
      ->add_option("--batch-cost-budget", parsed.batch.cost_budget,
                   "most spend of all goals together, USD (needs [prices])")
      ->type_name("USD");
  batch
      ->add_option("--batch-time-budget", parsed.batch.time_budget,
                   "most wall time of this run of the batch: 2h")
      ->type_name("DURATION");
  add_agent_options(*batch, parsed.run);
  add_external_agent_options(*batch, parsed.run);
  add_loop_options(*batch, parsed.run);
  // Every goal is recorded (to resume) and its events go to the batch's --events file.
  for (const char* name : {"--out", "--no-store"}) {
    batch->remove_option(batch->get_option(name));
  }

  CLI::App* status = p.add(*batch, "status",
                           "a queued batch: queued / running (by worker) / done / failed / "
                           "verified, tokens, cost (every batch of the queue without --name)",
                           CommandName::batch_status);
  status->footer(k_queue_exit_codes);
  add_queue_option(*status, parsed.batch.queue);
  status->add_option("--name", parsed.batch.name, "the batch")->type_name("NAME");
  status->add_flag("--json", parsed.run.json, "the counts as JSON");
  CLI::App* exported = p.add(
      *batch, "export", "a queued batch's results: one line per finished goal, as results.jsonl",
      CommandName::batch_export);
  exported->footer(k_queue_exit_codes);
  add_queue_option(*exported, parsed.batch.queue);
  exported->add_option("--name", parsed.batch.name, "the batch")->type_name("NAME")->required();
  exported->add_option("--output,-o", parsed.batch.output_file, "the file (default: stdout)")
      ->type_name("FILE")
      ->check(names_something());
}

void add_worker(Parser& p) {
  ParsedCommand& parsed = p.parsed;
  CLI::App* worker = p.add(p.app, "worker",
                           "run the goals of queued batches (`ralph batch FILE --queue URL`): "
                           "claims up to --concurrency goals under a lease it renews, runs each "
                           "as a session, records its result; a goal whose worker died is taken "
                           "over and resumed",
                           CommandName::worker);
  worker->footer(
      "Each goal works in a worktree of its `repo` at its `ref` under --workdir (an empty folder "
      "without one); its result is its branch pushed to --push, or else the patch in its result. "
      "See man ralph (docs/manual/batch.md, workers).\nExit codes: 0 nothing left to do "
      "(--exit-when-empty); 1 the queue or the session store could not be reached (its goals "
      "come back to the queue when their leases run out); 2 usage or configuration error; 130 "
      "stopped by SIGINT or SIGTERM, its running goals interrupted and given back to the queue.");
  add_queue_option(*worker, parsed.worker.queue);
  worker->add_option("--concurrency,-j", parsed.worker.concurrency, "goals running at once")
      ->type_name("N")
      ->check(CLI::Range(1, 4096));
  worker
      ->add_option("--workdir", parsed.worker.workdir,
                   "the goals' workspaces and the repositories' clones (default .ralph/worker)")
      ->type_name("DIR")
      ->check(names_something());
  worker->add_option("--push", parsed.worker.push, "push each goal's result branch to REMOTE")
      ->type_name("REMOTE");
  worker
      ->add_option("--lease", p.typed.lease,
                   "a claim's lease, renewed every third of it (default 60s)")
      ->type_name("DURATION");
  worker->add_flag("--exit-when-empty", parsed.worker.exit_when_empty,
                   "exit once no goal is queued or running (default: wait for new goals)");
  // Default: the queue's database, so a worker anywhere resumes any other's goals.
  SettingFlags(*worker, parsed.run)
      .add("--store", {.help = "the session store: postgresql://USER:PASSWORD@HOST/DB, or a "
                               "SQLite file (default the queue's database; also RALPH_STORE_URL, "
                               "store.url)"});
  worker
      ->add_option("--config", parsed.run.config_file,
                   "an extra configuration file (the batch's settings go over it)")
      ->type_name("FILE")
      ->check(names_something());
  worker->add_flag("--quiet,-q", parsed.run.quiet, "no progress on stderr");
}

void add_serve(Parser& p) {
  ParsedCommand& parsed = p.parsed;
  CLI::App* serve = p.add(p.app, "serve",
                          "an HTTP API, live events and a web UI over the sessions, batches and "
                          "workers of this workspace's store; runs goals started there",
                          CommandName::serve);
  serve->footer(
      "Prints a sign-in link that works once; API clients send Authorization: Bearer TOKEN (the "
      "token is in .ralph/serve/token, or RALPH_SERVE_TOKEN, or --token-file). See man ralph "
      "(docs/manual/serve.md; the API: docs/reference/api.md).\nExit codes: 0 stopped by SIGINT "
      "or SIGTERM (the sessions it ran end interrupted, resumable); 1 the port or the store could "
      "not be opened; 2 usage or configuration error.");
  serve->add_option("--port", parsed.serve.port, "the port to listen on (0: a free one)")
      ->type_name("N")
      ->check(CLI::Range(0, 65535));
  serve
      ->add_option("--bind", parsed.serve.bind,
                   "the address to listen on (default 127.0.0.1; any other needs a token)")
      ->type_name("ADDR");
  serve
      ->add_option("--allow-host", parsed.serve.allow_hosts,
                   "a host name the server answers to besides loopback's (repeatable)")
      ->type_name("NAME");
  serve
      ->add_option("--token-file", parsed.serve.token_file,
                   "a file holding the API token (default RALPH_SERVE_TOKEN, else a new one in "
                   ".ralph/serve/token)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
  serve->add_flag("--read-only", parsed.serve.read_only,
                  "refuse every request that would start, stop or change anything");
  serve
      ->add_option("--max-streams", parsed.serve.max_streams,
                   "live event streams (browser tabs) open at once, each a thread (default 64)")
      ->type_name("N")
      ->check(CLI::Range(1, 4096));
  add_agent_options(*serve, parsed.run);
  add_loop_options(*serve, parsed.run);
}

void add_mcp_install_options(CLI::App& command, ParsedCommand& parsed) {
  add_install_options(command, parsed.mcp.target, parsed.mcp.user, parsed.mcp.project, parsed.run,
                      {.user = "the user's settings (~/.claude.json, ~/.codex/config.toml, "
                               "~/.gemini/settings.json)",
                       .project = "the project's settings (.mcp.json, .codex/config.toml, "
                                  ".gemini/settings.json; the default)"});
}

void add_mcp(Parser& p) {
  ParsedCommand& parsed = p.parsed;
  CLI::App* mcp = p.add(p.app, "mcp",
                        "MCP both ways: the servers whose tools the built-in agent gets "
                        "([mcp.servers.NAME], .mcp.json), and ralph's verification as an MCP "
                        "server for other agents",
                        CommandName::none);
  mcp->require_subcommand(1);
  for (const auto& [name, help, command] :
       {std::tuple{"list",
                   "the configured MCP servers: started, each with its state, era, tools "
                   "and last error",
                   CommandName::mcp_list},
        std::tuple{"check",
                   "start each server (or those named), list its tools and say what "
                   "fails; exit 1 when one does",
                   CommandName::mcp_check}}) {
    CLI::App* sub = p.add(*mcp, name, help, command);
    sub->add_option("names", parsed.mcp.names, "the servers (default: every one configured)");
    add_workspace_option(*sub, parsed.run, "the workspace (default: the current directory)");
    add_config_option(*sub, parsed.run);
    sub->add_flag("--json", parsed.run.json, "print only a JSON result on stdout");
  }
  CLI::App* serve = p.add(*mcp, "serve",
                          "ralph as an MCP server on stdin/stdout: the tools verify, run_goal, "
                          "get_session, list_sessions and stop_session, for the workspace",
                          CommandName::mcp_serve);
  serve->footer("Stdout carries MCP messages only; diagnostics go to stderr.\nExit codes: 0 the "
                "client closed stdin; 1 the store could not be opened; 2 usage or configuration "
                "error.");
  add_agent_options(*serve, parsed.run);
  add_loop_options(*serve, parsed.run);
  add_mcp_install_options(
      *p.add(*mcp, "install",
             "add ralph's MCP server (`ralph mcp serve`) to claude, codex or gemini (idempotent)",
             CommandName::mcp_install),
      parsed);
  add_mcp_install_options(*p.add(*mcp, "uninstall",
                                 "remove ralph's MCP server, and nothing else, from the settings",
                                 CommandName::mcp_uninstall),
                          parsed);
}

} // namespace

ParsedCommand parse_command_line(int argc, char** argv) {
  ParsedCommand parsed;
  CLI::App app("ralph makes LLM agents finish the job: an agent works on a goal with real tools "
               "in a workspace, bounded and recorded.",
               "ralph");
  app.set_version_flag("--version", std::string("ralph ") + RALPH_VERSION);
  app.require_subcommand(1);
  app.allow_extras(); // inherited by every command added below
  // `ralph --help`: the codes of a run (each command says its own).
  app.footer(fmt::format("Run `ralph COMMAND --help` for the options of a command.\n{}",
                         k_run_exit_codes));
  Parser parser{.app = app, .parsed = parsed, .typed = {}, .commands = {}};
  // In the order `ralph --help` lists them.
  for (void (*add)(Parser&) : {add_run, add_chat, add_documents_and_demo, add_sessions, add_hook,
                               add_heartbeat, add_batch, add_worker, add_serve, add_mcp}) {
    add(parser);
  }

  std::optional<std::string> parse_error;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    parsed.exit_code = app.exit(e);
    return parsed;
  } catch (const CLI::CallForVersion& e) {
    parsed.exit_code = app.exit(e);
    return parsed;
  } catch (const CLI::ParseError& e) {
    parse_error = explain_parse_error(app, e);
  }
  // Words no command took were kept (allow_extras) rather than thrown as one reversed list; the
  // first of them explains more than what it caused (a required option left unset, ...).
  std::optional<std::string> problem = explain_leftover(app);
  if (!problem) {
    problem = parse_error;
  }
  for (const auto& [command, name] : parser.commands) {
    if (command->parsed()) {
      parsed.name = name;
    }
  }
  if (!problem) {
    problem = check_values(command_words(command_chain(app)), parser.typed, parsed);
  }
  if (problem) {
    std::fprintf(stderr, "%s\n", problem->c_str());
    // Claude Code and Gemini CLI take a hook's exit 2 as "block" and feed its stderr to the
    // agent: a mistyped hook command must be a non-blocking error instead.
    parsed.exit_code = parsed.name == CommandName::hook ? 1 : 2;
  }
  return parsed;
}

} // namespace ralph::cli
