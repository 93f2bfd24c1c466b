// The only file that includes CLI11 (it costs seconds of compile time per file).
#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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

void add_agent_options(CLI::App& command, RunArgs& args) {
  OverrideFlags flags(command, args);
  flags.add("--model,-m", "model", "PROVIDER/MODEL",
            "openai/..., anthropic/..., ollama/..., openai-compat/... (with --base-url), "
            "scripted/FILE.json");
  flags.add("--base-url", "base_url", "URL",
            "server URL for openai-compat, or to override a default");
  flags.add("--max-steps", "agent.max_steps", "N", "most model calls in one attempt (default 40)");
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

  CLI::App* run = app.add_subcommand("run", "the built-in agent works on GOAL in a workspace");
  run->add_option("goal", parsed.run.goal, "what to do, in words")->required();
  add_agent_options(*run, parsed.run);

  CLI::App* demo = app.add_subcommand(
      "demo", "a self-contained run on a scripted stand-in model (no key, no network)");
  demo->add_flag("--json", parsed.run.json, "print only a JSON result object on stdout");
  demo->add_flag("--quiet,-q", parsed.run.quiet, "no progress on stderr");

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
  if (run->parsed()) {
    parsed.name = CommandName::run;
  } else if (demo->parsed()) {
    parsed.name = CommandName::demo;
  }
  return parsed;
}

} // namespace ralph::cli
