// The only file that includes CLI11 (it costs seconds of compile time per file).
#include "cli/command_line.h"

#include "cli/usage_hint.h"

#include "ralph/core/config.h"
#include "ralph/core/quantity.h"
#include "ralph/core/text.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <optional>

namespace ralph::cli {
namespace {

// Adds a flag whose value becomes a configuration override, validated with the key table so
// flags, files and variables give the same errors.
class OverrideFlags {
public:
  OverrideFlags(CLI::App& command, RunArgs& args) : m_command(command), m_args(args) {}

  void add(const std::string& flag, const std::string& key, const std::string& type,
           const std::string& help) {
    m_command
        .add_option_function<std::string>(
            flag,
            // Captures the arguments, not this helper: callbacks run after it is gone.
            [args = &m_args, flag, key](const std::string& value) {
              args->overrides.push_back({key, value, flag.substr(0, flag.find(','))});
            },
            help)
        ->type_name(type);
  }
  // A repeatable flag for a list key: the first occurrence replaces the configured list.
  void add_list(const std::string& flag, const std::string& key, const std::string& type,
                const std::string& help) {
    m_command
        .add_option_function<std::vector<std::string>>(
            flag,
            [args = &m_args, flag, key](const std::vector<std::string>& values) {
              for (std::size_t i = 0; i < values.size(); ++i) {
                args->overrides.push_back({key, values[i], flag, i > 0});
              }
            },
            help)
        ->type_name(type)
        ->allow_extra_args(false);
  }
  void add_switch(const std::string& flag, const std::string& key, const std::string& value,
                  const std::string& help) {
    m_command.add_flag_callback(
        flag,
        [args = &m_args, flag, key, value] {
          args->overrides.push_back({key, value, flag});
        },
        help);
  }

private:
  CLI::App& m_command;
  RunArgs& m_args;
};

// Where sessions are recorded, for every command that opens the store.
void add_store_flag(CLI::App& command, RunArgs& args,
                    std::string_view fallback = ".ralph/ralph.db") {
  OverrideFlags(command, args)
      .add("--store", "store.url", "URL",
           fmt::format("the session store: postgresql://USER:PASSWORD@HOST/DB, or a SQLite file "
                       "(default {}; also RALPH_STORE_URL, store.url)",
                       fallback));
}

// What --max-steps bounds: the ReAct agent's attempt, or a document's exploration (rlm).
enum class StepsOf { agent, exploration };

void add_agent_options(CLI::App& command, RunArgs& args, StepsOf steps = StepsOf::agent) {
  OverrideFlags flags(command, args);
  flags.add("--model,-m", "model", "PROVIDER/MODEL",
            "openai/..., openai-responses/..., anthropic/..., ollama/..., openai-compat/... "
            "(with --base-url), scripted/FILE.json");
  flags.add("--base-url", "base_url", "URL",
            "server URL for openai-compat, or to override a default");
  if (steps == StepsOf::agent) {
    flags.add("--max-steps", "agent.max_steps", "N",
              "most model calls in one attempt (default 40)");
  } else {
    flags.add("--max-steps", "rlm.max_steps", "N",
              "most model calls in one attempt's exploration (default 80)");
  }
  flags.add("--max-tokens", "agent.max_tokens", "N",
            "output token cap of each model call: 4096, 8k");
  flags.add("--temperature", "agent.temperature", "T", "sampling temperature (0 to 2)");
  flags.add_switch("--no-stream", "agent.stream", "false",
                   "ask for whole responses instead of streams");
  command
      .add_option("--workspace,-w", args.workspace,
                  "directory the tools work in (default: the current directory)")
      ->type_name("DIR");
  command
      .add_option("--config", args.config_file,
                  "an extra configuration file, above the workspace one")
      ->type_name("FILE");
  command.add_flag("--json", args.json, "print only a JSON result object on stdout");
  command.add_flag("--quiet,-q", args.quiet, "no progress on stderr");
}

// An external agent CLI as the inner loop instead of the built-in agent.
void add_external_agent_options(CLI::App& command, RunArgs& args) {
  OverrideFlags flags(command, args);
  flags.add("--agent", "agent.cli", "NAME",
            "an agent CLI works on the goal: claude, codex, gemini, aider, goose, opencode, or "
            "any [agents.NAME] of the configuration");
  flags.add("--agent-model", "agent.model", "MODEL", "the model the agent CLI is to use");
  flags.add_list("--agent-arg", "agent.args", "ARG",
                 "an argument added to the agent CLI's command line (repeatable; "
                 "--agent-arg=--flag for one that starts with -)");
  flags.add("--agent-cmd", "agent.command", "CMD",
            "any other program as the agent, run by /bin/sh -c: the prompt on stdin, or where "
            "{prompt} or {prompt_file} appears; its output is the answer");
  flags.add("--agent-timeout", "agent.timeout", "DURATION",
            "most wall time of one attempt of the agent CLI (default 1h)");
  flags.add("--agent-idle-timeout", "agent.idle_timeout", "DURATION",
            "stop the agent CLI after this long without output (default 10m)");
}

// The budgets of a run under the outer loop and where it is recorded.
void add_bounds_and_records(CLI::App& command, RunArgs& args) {
  OverrideFlags flags(command, args);
  flags.add("--max-iterations", "loop.max_iterations", "N", "most attempts (default 3)");
  flags.add("--token-budget", "budget.max_tokens", "N",
            "most input+output tokens over the run, the judge's included: 200000, 200k, 2M");
  flags.add("--cost-budget", "budget.max_cost_usd", "USD",
            "most spend over the run: 5, 0.50 (needs [prices] in the configuration)");
  flags.add("--time-budget", "budget.max_time", "DURATION",
            "most wall time of the run: 90 (seconds), 90s, 1.5m, 2h, 1h30m");
  command.add_option("--events", args.events_file, "write every event to FILE as NDJSON")
      ->type_name("FILE");
  command
      .add_option("--out", args.out_dir,
                  "after each attempt, write DIR/iter-XX.json, DIR/sessions/ID/iter-XX.json and "
                  "DIR/session-index.json")
      ->type_name("DIR");
  flags.add_switch("--no-store", "store.enabled", "false",
                   "do not record the session in .ralph/ralph.db (no resume)");
  add_store_flag(command, args);
}

// The verifiers `ralph run` and `ralph hook` share.
void add_verifier_options(CLI::App& command, RunArgs& args) {
  OverrideFlags flags(command, args);
  flags.add_list("--verify-cmd", "verify.commands", "CMD",
                 "a shell command that must exit 0 for an attempt to pass (repeatable)");
  flags.add_list("--verify-exec", "verify.exec", "PROG",
                 "a program that reads the attempt as JSON and prints a verdict (repeatable)");
  command
      .add_option_function<std::string>(
          "--judge",
          [a = &args](const std::string& value) {
            a->overrides.push_back({"judge.model", value.empty() ? "agent" : value, "--judge"});
          },
          "an LLM judge on PROVIDER/MODEL (alone: the agent's model; another family is better)")
      ->type_name("[PROVIDER/MODEL]")
      ->expected(0, 1);
  flags.add("--judge-base-url", "judge.base_url", "URL", "server URL for the judge's model");
  flags.add_list("--protect", "verify.protect", "GLOB",
                 "files no attempt may change, e.g. 'tests/**' (repeatable)");
  flags.add_list("--junit", "verify.junit", "GLOB",
                 "JUnit XML reports the verify commands write, e.g. 'build/test-*.xml'");
  flags.add("--reruns", "verify.runs", "N", "run a failing verify command up to N times");
  flags.add("--quorum", "verify.quorum", "K", "...and pass when K of the runs pass");
  flags.add_list("--must-match", "checks.must_match", "REGEX",
                 "the answer must match this RE2 pattern (repeatable)");
  flags.add_list("--must-not-match", "checks.must_not_match", "REGEX",
                 "the answer must not match this RE2 pattern (repeatable)");
}

// What the loop runs as: `--heartbeat` for `ralph run`; `ralph heartbeat` always is one and
// verifies it unless told not to.
enum class HeartbeatFlags { run, heartbeat_command };

void add_loop_options(CLI::App& command, RunArgs& args,
                      HeartbeatFlags heartbeat = HeartbeatFlags::run) {
  add_verifier_options(command, args);
  OverrideFlags flags(command, args);
  flags.add_switch("--verifier-first", "evidence.enabled", "true",
                   "completion needs the marker AND a passing trusted check after the last change");
  flags.add("--marker", "evidence.marker", "TEXT",
            "the completion marker (default <promise>DONE</promise>)");
  flags.add("--feedback", "loop.feedback", "MODE",
            "append (a message in the same conversation) or continue (a compact restart)");
  flags.add("--trigger", "loop.trigger", "MODE", "always, keywords, marker or heartbeat");
  flags.add_list("--keyword", "loop.keywords", "WORD",
                 "a trigger keyword for --trigger keywords (repeatable)");
  if (heartbeat == HeartbeatFlags::run) {
    flags.add_switch("--heartbeat", "loop.heartbeat", "true",
                     "this run is a periodic check-in (HEARTBEAT.md applies)");
    flags.add_switch("--verify-heartbeat", "loop.verify_heartbeat", "true",
                     "verify heartbeat runs (a lazy HEARTBEAT_OK is judged like any answer)");
  } else {
    command
        .add_option_function<std::string>(
            "--verify-heartbeat",
            [a = &args](const std::string& value) {
              a->overrides.push_back(
                  {"loop.verify_heartbeat", value.empty() ? "true" : value, "--verify-heartbeat"});
            },
            "judge every answer with HEARTBEAT.md in view, so a lazy HEARTBEAT_OK fails and is "
            "retried (default true; needs --judge)")
        ->type_name("[BOOL]")
        ->expected(0, 1);
    flags.add_switch("--no-verify-heartbeat", "loop.verify_heartbeat", "false",
                     "accept each answer unjudged (no judge needed)");
  }
  flags.add("--progress-interval", "display.progress_interval", "SECONDS",
            "off a terminal, a progress line this often during a long phase (0: never)");
  flags.add_switch("--no-verify-final", "loop.verify_final", "false",
                   "deliver the last attempt without verifying it");
  add_bounds_and_records(command, args);
}

// `qa` and `task`: the document, the query, and the loop options that apply to them.
void add_document_options(CLI::App& command, RunArgs& args) {
  command.add_option("--doc,-d", args.document, "the document to work on (any size)")
      ->type_name("FILE")
      ->required();
  command.add_option("--query,-Q", args.goal, "the question or task")->required();
  add_agent_options(command, args, StepsOf::exploration);
  OverrideFlags flags(command, args);
  command
      .add_option_function<std::string>(
          "--judge",
          [a = &args](const std::string& value) {
            a->overrides.push_back({"judge.model", value, "--judge"});
          },
          "the validator's PROVIDER/MODEL (default: the generator's; another family is better)")
      ->type_name("PROVIDER/MODEL");
  flags.add("--judge-base-url", "judge.base_url", "URL", "server URL for the judge's model");
  flags.add("--match-level", "qa.match_level", "LEVEL",
            "loosest verbatim match accepted: exact, whitespace (default), typographic, casefold");
  flags.add("--sub-model", "rlm.sub_model", "PROVIDER/MODEL",
            "the model llm_query calls use (default: the generator's)");
  flags.add("--max-sub-queries", "rlm.max_sub_queries", "N",
            "most llm_query calls in one attempt (default 60)");
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

// What parsing cannot see: an empty goal or query, and flag values the configuration keys
// reject (checked here so the message names the flag as typed). Sets prune's age.
std::optional<std::string> check_values(const std::string& words, const std::string& older_than,
                                        const std::string& every, const std::string& attempts,
                                        ParsedCommand& parsed) {
  if (parsed.name == CommandName::run && !attempts.empty()) {
    // More would mostly wait on each other: each attempt is a whole agent, its tools and its
    // verifiers, and each a worktree on disk.
    int n = 0;
    const auto [end, error] =
        std::from_chars(attempts.data(), attempts.data() + attempts.size(), n);
    if (error != std::errc() || end != attempts.data() + attempts.size() || n < 1 ||
        n > k_max_parallel_attempts) {
      return fmt::format("{}: --parallel-attempts '{}': expected a whole number from 1 to {}",
                         words, attempts, k_max_parallel_attempts);
    }
    parsed.run.parallel_attempts = n;
  }
  if (parsed.name == CommandName::heartbeat) {
    if (!every.empty()) {
      const auto interval = parse_duration(every);
      if (!interval || interval->count() <= 0) {
        return fmt::format("{}: --every '{}': expected {}, more than 0", words, every,
                           k_duration_forms);
      }
      parsed.heartbeat.every = *interval;
    } else if (parsed.heartbeat.ticks > 1) {
      return usage_problem(words, "--ticks needs --every (without it there is one tick)");
    }
  }
  if (parsed.name == CommandName::sessions_prune) {
    const auto age = parse_duration(older_than);
    if (!age) {
      return fmt::format("{}: --older-than '{}': expected {} or 30d", words, older_than,
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
  return std::nullopt;
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
  app.footer("Run `ralph COMMAND --help` for the options of a command.\n"
             "Exit codes: 0 completed, 1 failed, 2 usage or configuration error, 3 budget "
             "exhausted, 4 blocked, 5 stalled, 130 interrupted.");

  CLI::App* run = app.add_subcommand(
      "run", "the built-in agent (or an agent CLI: --agent) works on GOAL in a workspace, "
             "verified when verifiers are given");
  run->add_option("goal", parsed.run.goal, "what to do, in words")->required();
  add_agent_options(*run, parsed.run);
  add_external_agent_options(*run, parsed.run);
  add_loop_options(*run, parsed.run);
  std::string parallel_attempts;
  run->add_option("--parallel-attempts", parallel_attempts,
                  "best of N: N attempts at once, each in its own git worktree (or copy) under "
                  ".ralph/attempts/; the verifiers rank them and the best passing one is applied "
                  "(a commit on the current branch, or files); ties: fewer changed lines, then "
                  "lower cost (1 to 16)")
      ->type_name("N");

  CLI::App* chat = app.add_subcommand(
      "chat", "an interactive session with the agent; /goal TEXT works on TEXT until the "
              "verifiers pass (reads one line per turn when stdin is not a terminal)");
  chat->add_option("--resume", parsed.chat.resume,
                   "go on with a recorded chat: its "
                   "conversation, goal and budgets")
      ->type_name("ID");
  add_agent_options(*chat, parsed.run);
  add_external_agent_options(*chat, parsed.run);
  add_verifier_options(*chat, parsed.run);
  {
    OverrideFlags flags(*chat, parsed.run);
    flags.add("--marker", "evidence.marker", "TEXT",
              "the completion marker of goals (default <promise>DONE</promise>)");
  }
  add_bounds_and_records(*chat, parsed.run);
  // A chat has no one result to print, records itself in the store, and shows what happens.
  for (const char* name : {"--json", "--events", "--out", "--no-store"}) {
    chat->remove_option(chat->get_option(name));
  }

  CLI::App* qa = app.add_subcommand(
      "qa", "grounded QA: answer bullets with verbatim quotes from the document, checked and "
            "judged");
  add_document_options(*qa, parsed.run);
  CLI::App* task = app.add_subcommand(
      "task", "task mode: a reader explores the document, a reasoner writes the output and the "
              "memory file, a judge checks it");
  add_document_options(*task, parsed.run);
  {
    OverrideFlags flags(*task, parsed.run);
    flags.add("--mem-file", "task.mem_file", "FILE",
              "the memory file findings are appended to (relative to the workspace)");
  }

  CLI::App* demo = app.add_subcommand(
      "demo", "a self-contained run on a scripted stand-in model (no key, no network)");
  demo->add_flag("--json", parsed.run.json, "print only a JSON result object on stdout");
  demo->add_option("--events", parsed.run.events_file, "write every event to FILE as NDJSON")
      ->type_name("FILE");
  demo->add_flag("--quiet,-q", parsed.run.quiet, "no progress on stderr");

  CLI::App* sessions = app.add_subcommand(
      "sessions", "the recorded sessions of a workspace, or of the store --store names");
  sessions->require_subcommand(1);
  const auto add_store_options = [&](CLI::App* command) {
    command
        ->add_option("--workspace,-w", parsed.run.workspace,
                     "the workspace whose sessions to use (default: the current directory)")
        ->type_name("DIR");
    command
        ->add_option("--config", parsed.run.config_file,
                     "an extra configuration file, above the workspace one")
        ->type_name("FILE");
    add_store_flag(*command, parsed.run);
  };
  CLI::App* list =
      sessions->add_subcommand("list", "id, goal, status, attempts, tokens, cost, age");
  add_store_options(list);
  list->add_flag("--json", parsed.run.json, "the sessions as JSON");
  list->add_flag("--heartbeat", parsed.sessions.heartbeat,
                 "recent `ralph heartbeat` ticks only: start, status, verified, duration, answer, "
                 "and a total");
  CLI::App* show = sessions->add_subcommand(
      "show", "every attempt, tool call, verdict and feedback of a session");
  show->add_option("id", parsed.sessions.id, "the session id (or a unique prefix)")->required();
  add_store_options(show);
  show->add_flag("--json", parsed.run.json, "the whole record as JSON");
  CLI::App* resume = sessions->add_subcommand(
      "resume", "continue a session where it stopped, its budgets carried on");
  resume->add_option("id", parsed.sessions.id, "the session id (or a unique prefix)")->required();
  resume->add_flag("--yes,-y", parsed.sessions.yes, "do not ask before continuing");
  add_store_options(resume);
  {
    OverrideFlags flags(*resume, parsed.run);
    flags.add("--max-iterations", "loop.max_iterations", "N",
              "raise the attempts allowed (needed to resume a session that used them all)");
    flags.add("--max-steps", "agent.max_steps", "N", "most model calls in one attempt");
    flags.add("--base-url", "base_url", "URL", "the model's server, when it moved");
    flags.add("--token-budget", "budget.max_tokens", "N", "raise the token budget: 200k, 2M");
    flags.add("--cost-budget", "budget.max_cost_usd", "USD", "raise the cost budget");
    flags.add("--time-budget", "budget.max_time", "DURATION",
              "raise the time budget: 90s, 1.5m, 2h");
  }
  resume->add_flag("--json", parsed.run.json, "print only a JSON result object on stdout");
  resume->add_flag("--quiet,-q", parsed.run.quiet, "no progress on stderr");
  resume->add_option("--events", parsed.run.events_file, "write every event to FILE as NDJSON")
      ->type_name("FILE");
  resume->add_option("--out", parsed.run.out_dir, "write trace files under DIR")->type_name("DIR");
  CLI::App* exported = sessions->add_subcommand("export", "write a session's trace files");
  exported->add_option("id", parsed.sessions.id, "the session id (or a unique prefix)")->required();
  exported->add_option("--out", parsed.sessions.out_dir, "the folder to write them to")
      ->type_name("DIR")
      ->required();
  add_store_options(exported);
  CLI::App* rm = sessions->add_subcommand("rm", "delete a session and its record");
  rm->add_option("id", parsed.sessions.id, "the session id (or a unique prefix)")->required();
  add_store_options(rm);
  CLI::App* prune = sessions->add_subcommand("prune", "delete sessions not updated for a while");
  std::string older_than;
  prune->add_option("--older-than", older_than, "a duration: 30d, 12h, 90m, 1h30m")
      ->type_name("AGE")
      ->required();
  add_store_options(prune);
  CLI::App* copy = sessions->add_subcommand(
      "copy", "copy sessions, with everything recorded about them, to another store (SQLite or "
              "PostgreSQL)");
  copy->add_option("ids", parsed.sessions.ids, "the sessions (ids or unique prefixes; none: all)");
  copy->add_option("--to", parsed.sessions.copy_to,
                   "the store to copy to: postgresql://USER:PASSWORD@HOST/DB or a SQLite file")
      ->type_name("URL")
      ->required();
  copy->add_flag("--replace", parsed.sessions.replace,
                 "replace sessions already there (default: skip them, saying so)");
  add_store_options(copy);

  CLI::App* hook = app.add_subcommand(
      "hook", "ralph's verifiers as the Stop hook of Claude Code, Codex or Gemini CLI: reads the "
              "hook payload on stdin, lets the agent stop or sends it back with the failures");
  hook->footer("Exit codes: 0 decided (the JSON on stdout says block, or nothing lets the stop "
               "through); 1 could not verify (said on stderr; the agent may stop). Never 2, "
               "which the agent CLIs read as a block.");
  hook->add_option("--agent", parsed.hook.agent,
                   "the CLI that runs the hook (default: told from the payload)")
      ->type_name("AGENT")
      ->check(CLI::IsMember({"claude", "codex", "gemini"}));
  add_verifier_options(*hook, parsed.run);
  {
    OverrideFlags flags(*hook, parsed.run);
    flags.add("--max-iterations", "loop.max_iterations", "N",
              "most verified stops in a round before a failing one is let through (default 3: "
              "the agent is sent back twice)");
    flags.add("--max-time,--time-budget", "budget.max_time", "DURATION",
              "after this long since a round's first stop, a failing one is let through: 10m");
  }
  hook->add_option("--config", parsed.run.config_file,
                   "an extra configuration file, above the workspace one")
      ->type_name("FILE");
  add_store_flag(*hook, parsed.run);
  const auto add_install_options = [&](CLI::App* command) {
    command->add_option("agent", parsed.hook.target, "claude, codex or gemini")
        ->required()
        ->check(CLI::IsMember({"claude", "codex", "gemini"}));
    CLI::Option* user = command->add_flag(
        "--user", parsed.hook.user,
        "the user's settings (~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/...)");
    command
        ->add_flag("--project", parsed.hook.project,
                   "the project's settings (.claude/settings.json, "
                   ".codex/hooks.json, .gemini/settings.json; the default)")
        ->excludes(user);
    command
        ->add_option("--workspace,-w", parsed.run.workspace,
                     "the project (default: the current directory)")
        ->type_name("DIR");
    command->footer("Exit codes: 0 done (or nothing to do), 2 usage error or a settings file that "
                    "is not valid JSON (left as it was), 1 the file could not be written.");
  };
  CLI::App* install = hook->add_subcommand(
      "install", "add `ralph hook` as the Stop hook of claude, codex or gemini (idempotent)");
  add_install_options(install);
  CLI::App* uninstall =
      hook->add_subcommand("uninstall", "remove ralph's hook, and nothing else, from the settings");
  add_install_options(uninstall);

  CLI::App* heartbeat = app.add_subcommand(
      "heartbeat", "run the agent on the tasks in the workspace's HEARTBEAT.md: one tick (for cron "
                   "or a timer) or --every DURATION in the foreground; HEARTBEAT_OK when nothing "
                   "is due");
  heartbeat->footer(
      "Each tick is a verified run recorded as a session (`ralph sessions list --heartbeat`); "
      "ticks never overlap (.ralph/heartbeat.lock).\nExit codes: one tick: the run's (0 "
      "completed, 1 failed, 3 budget exhausted, 4 blocked, 5 stalled); a tick skipped because "
      "another is running: 0; --every: 0 when every tick completed, else the code of the last "
      "tick that did not; 2 usage or configuration error (no HEARTBEAT.md, no judge while "
      "verifying); 130 interrupted.");
  std::string every;
  heartbeat->add_option("--every", every, "a tick this often, in the foreground: 30m, 1.5h, 90s")
      ->type_name("DURATION");
  heartbeat->add_option("--ticks", parsed.heartbeat.ticks, "stop after N ticks (with --every)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  heartbeat->add_flag("--wait", parsed.heartbeat.wait,
                      "when another tick is running, wait for it, then run (default: skip)");
  add_agent_options(*heartbeat, parsed.run);
  add_external_agent_options(*heartbeat, parsed.run);
  add_loop_options(*heartbeat, parsed.run, HeartbeatFlags::heartbeat_command);

  CLI::App* batch = app.add_subcommand(
      "batch", "many goals at once in one process, each in its own git worktree (or copy) under "
               ".ralph/batch/: one JSON object per line of FILE; run it again to resume. With "
               "--queue URL: into a PostgreSQL queue for `ralph worker` on any machine");
  batch->footer("Goal keys: id, goal, workspace, repo, ref, and the run flags that set a "
                "configuration key, in snake case (verify, model, max_iterations, token_budget, "
                "...), or any dotted configuration key. README: \"Many goals at once\".\n"
                "Exit codes: 0 every goal completed; 1 some goal ended otherwise (see the "
                "results); 2 usage error or bad lines in FILE (nothing run); 3 a batch budget ran "
                "out first; 130 interrupted. Run the same command again to go on.");
  // Required unless a command of `batch` is given: checked in check_values.
  batch->add_option("goals", parsed.batch.goals_file, "the goals file (JSON lines)")
      ->type_name("FILE");
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
      ->type_name("FILE");
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

  const auto add_queue_options = [&](CLI::App* command) {
    command->add_option("--queue", parsed.batch.queue, "the PostgreSQL queue (postgresql://...)")
        ->type_name("URL")
        ->envname("RALPH_QUEUE_URL")
        ->required();
  };
  CLI::App* batch_status = batch->add_subcommand(
      "status", "a queued batch: queued / running (by worker) / done / failed / verified, "
                "tokens, cost (every batch of the queue without --name)");
  add_queue_options(batch_status);
  batch_status->add_option("--name", parsed.batch.name, "the batch")->type_name("NAME");
  batch_status->add_flag("--json", parsed.run.json, "the counts as JSON");
  CLI::App* batch_export = batch->add_subcommand(
      "export", "a queued batch's results: one line per finished goal, as results.jsonl");
  add_queue_options(batch_export);
  batch_export->add_option("--name", parsed.batch.name, "the batch")->type_name("NAME")->required();
  batch_export->add_option("--output,-o", parsed.batch.output_file, "the file (default: stdout)")
      ->type_name("FILE");

  CLI::App* worker = app.add_subcommand(
      "worker", "run the goals of queued batches (`ralph batch FILE --queue URL`): claims up to "
                "--concurrency goals under a lease it renews, runs each as a session, records "
                "its result; a goal whose worker died is taken over and resumed");
  worker->footer(
      "Each goal works in a worktree of its `repo` at its `ref` under --workdir (an empty folder "
      "without one); its result is its branch pushed to --push, or else the patch in its result. "
      "README: \"Batches across machines\".\nExit codes: 0 nothing left to do "
      "(--exit-when-empty); 1 the queue or the session store could not be reached (its goals "
      "come back to the queue when their leases run out); 2 usage or configuration error; 130 "
      "stopped by SIGINT or SIGTERM, its running goals interrupted and given back to the queue.");
  worker->add_option("--queue", parsed.worker.queue, "the PostgreSQL queue (postgresql://...)")
      ->type_name("URL")
      ->envname("RALPH_QUEUE_URL")
      ->required();
  worker->add_option("--concurrency,-j", parsed.worker.concurrency, "goals running at once")
      ->type_name("N")
      ->check(CLI::Range(1, 4096));
  worker
      ->add_option("--workdir", parsed.worker.workdir,
                   "the goals' workspaces and the repositories' clones (default .ralph/worker)")
      ->type_name("DIR");
  worker->add_option("--push", parsed.worker.push, "push each goal's result branch to REMOTE")
      ->type_name("REMOTE");
  std::string lease;
  worker->add_option("--lease", lease, "a claim's lease, renewed every third of it (default 60s)")
      ->type_name("DURATION");
  worker->add_flag("--exit-when-empty", parsed.worker.exit_when_empty,
                   "exit once no goal is queued or running (default: wait for new goals)");
  // Default: the queue's database, so a worker anywhere resumes any other's goals.
  add_store_flag(*worker, parsed.run, "the queue's database");
  worker
      ->add_option("--config", parsed.run.config_file,
                   "an extra configuration file (the batch's settings go over it)")
      ->type_name("FILE");
  worker->add_flag("--quiet,-q", parsed.run.quiet, "no progress on stderr");

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
  const std::pair<CLI::App*, CommandName> commands[] = {
      {run, CommandName::run},
      {qa, CommandName::qa},
      {task, CommandName::task},
      {demo, CommandName::demo},
      {list, CommandName::sessions_list},
      {show, CommandName::sessions_show},
      {resume, CommandName::sessions_resume},
      {exported, CommandName::sessions_export},
      {rm, CommandName::sessions_rm},
      {prune, CommandName::sessions_prune},
      {copy, CommandName::sessions_copy},
      {hook, CommandName::hook},
      {install, CommandName::hook_install},
      {uninstall, CommandName::hook_uninstall},
      {chat, CommandName::chat},
      {heartbeat, CommandName::heartbeat},
      {batch, CommandName::batch},
      {batch_status, CommandName::batch_status},
      {batch_export, CommandName::batch_export},
      {worker, CommandName::worker},
  };
  for (const auto& [command, name] : commands) {
    if (command->parsed()) {
      parsed.name = name;
    }
  }
  if (!problem) {
    problem = check_values(command_words(command_chain(app)), older_than, every, parallel_attempts,
                           parsed);
  }
  if (!problem && parsed.name == CommandName::worker && !lease.empty()) {
    const auto duration = parse_duration(lease);
    if (!duration || duration->count() < 300) {
      problem = fmt::format("ralph worker: --lease '{}': expected {}, at least 0.3s", lease,
                            k_duration_forms);
    } else {
      parsed.worker.lease = *duration;
    }
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
