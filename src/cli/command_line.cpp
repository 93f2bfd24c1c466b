// The only file that includes CLI11 (it costs seconds of compile time per file).
#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <optional>

namespace ralph::cli {
namespace {

// "10m" -> "600"; text that is not a duration is passed on for the key table to reject.
std::string seconds_text(const std::string& value) {
  if (value.size() < 2) {
    return value;
  }
  const char unit = value.back();
  const int scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 0;
  const std::string number = value.substr(0, value.size() - 1);
  if (scale == 0 || number.find_first_not_of("0123456789") != std::string::npos) {
    return value;
  }
  return std::to_string(std::stoll(number) * scale);
}

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
  // A duration in seconds: "90", "90s", "10m", "2h".
  void add_duration(const std::string& flag, const std::string& key, const std::string& help) {
    m_command
        .add_option_function<std::string>(
            flag,
            [args = &m_args, flag, key](const std::string& value) {
              args->overrides.push_back({key, seconds_text(value), flag});
            },
            help)
        ->type_name("DURATION");
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

// What --max-steps bounds: the ReAct agent's attempt, or a document's exploration (rlm).
enum class StepsOf { agent, exploration };

void add_agent_options(CLI::App& command, RunArgs& args, StepsOf steps = StepsOf::agent) {
  OverrideFlags flags(command, args);
  flags.add("--model,-m", "model", "PROVIDER/MODEL",
            "openai/..., anthropic/..., ollama/..., openai-compat/... (with --base-url), "
            "scripted/FILE.json");
  flags.add("--base-url", "base_url", "URL",
            "server URL for openai-compat, or to override a default");
  if (steps == StepsOf::agent) {
    flags.add("--max-steps", "agent.max_steps", "N",
              "most model calls in one attempt (default 40)");
  } else {
    flags.add("--max-steps", "rlm.max_steps", "N",
              "most model calls in one attempt's exploration (default 80)");
  }
  flags.add("--max-tokens", "agent.max_tokens", "N", "output token cap of each model call");
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

// The budgets of a run under the outer loop and where it is recorded.
void add_bounds_and_records(CLI::App& command, RunArgs& args) {
  OverrideFlags flags(command, args);
  flags.add("--max-iterations", "loop.max_iterations", "N", "most attempts (default 3)");
  flags.add("--token-budget", "budget.max_tokens", "N",
            "most input+output tokens over the run, the judge's included");
  flags.add("--cost-budget", "budget.max_cost_usd", "USD",
            "most spend over the run (needs [prices] in the configuration)");
  flags.add_duration("--time-budget", "budget.max_time",
                     "most wall time of the run: 90, 90s, 10m, 2h");
  command.add_option("--events", args.events_file, "write every event to FILE as NDJSON")
      ->type_name("FILE");
  command
      .add_option("--out", args.out_dir,
                  "after each attempt, write DIR/iter-XX.json, DIR/sessions/ID/iter-XX.json and "
                  "DIR/session-index.json")
      ->type_name("DIR");
  flags.add_switch("--no-store", "store.enabled", "false",
                   "do not record the session in .ralph/ralph.db (no resume)");
}

void add_loop_options(CLI::App& command, RunArgs& args) {
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
  flags.add_switch("--verifier-first", "evidence.enabled", "true",
                   "completion needs the marker AND a passing trusted check after the last change");
  flags.add("--marker", "evidence.marker", "TEXT",
            "the completion marker (default <promise>DONE</promise>)");
  flags.add("--feedback", "loop.feedback", "MODE",
            "append (a message in the same conversation) or continue (a compact restart)");
  flags.add("--trigger", "loop.trigger", "MODE", "always, keywords, marker or heartbeat");
  flags.add_list("--keyword", "loop.keywords", "WORD",
                 "a trigger keyword for --trigger keywords (repeatable)");
  flags.add_switch("--heartbeat", "loop.heartbeat", "true",
                   "this run is a periodic check-in (HEARTBEAT.md applies; verified)");
  flags.add_switch("--no-verify-final", "loop.verify_final", "false",
                   "deliver the last attempt without verifying it");
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

} // namespace

ParsedCommand parse_command_line(int argc, char** argv) {
  ParsedCommand parsed;
  CLI::App app("ralph makes LLM agents finish the job: an agent works on a goal with real tools "
               "in a workspace, bounded and recorded.",
               "ralph");
  app.set_version_flag("--version", std::string("ralph ") + RALPH_VERSION);
  app.require_subcommand(1);
  app.footer("Run `ralph COMMAND --help` for the options of a command.\n"
             "Exit codes: 0 completed, 1 failed, 2 usage or configuration error, 3 budget "
             "exhausted, 4 blocked, 5 stalled, 130 interrupted.");

  CLI::App* run = app.add_subcommand(
      "run", "the built-in agent works on GOAL in a workspace, verified when verifiers are given");
  run->add_option("goal", parsed.run.goal, "what to do, in words")->required();
  add_agent_options(*run, parsed.run);
  add_loop_options(*run, parsed.run);

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

  CLI::App* sessions = app.add_subcommand("sessions", "the recorded sessions of a workspace");
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
  };
  CLI::App* list =
      sessions->add_subcommand("list", "id, goal, status, attempts, tokens, cost, age");
  add_store_options(list);
  list->add_flag("--json", parsed.run.json, "the sessions as JSON");
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
    flags.add("--token-budget", "budget.max_tokens", "N", "raise the token budget");
    flags.add("--cost-budget", "budget.max_cost_usd", "USD", "raise the cost budget");
    flags.add_duration("--time-budget", "budget.max_time", "raise the time budget: 90s, 10m, 2h");
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
  prune->add_option("--older-than", parsed.sessions.older_than, "e.g. 30d, 12h, 90m")
      ->type_name("AGE")
      ->required();
  add_store_options(prune);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    parsed.exit_code = app.exit(e);
    return parsed;
  } catch (const CLI::CallForVersion& e) {
    parsed.exit_code = app.exit(e);
    return parsed;
  } catch (const CLI::ParseError& e) {
    // One line, then where to look; CLI11's own output is several lines of help.
    std::fprintf(stderr, "ralph: error: %s\nRun `ralph --help` for usage.\n", e.what());
    parsed.exit_code = 2;
    return parsed;
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
  };
  for (const auto& [command, name] : commands) {
    if (command->parsed()) {
      parsed.name = name;
    }
  }
  return parsed;
}

} // namespace ralph::cli
