#include "cli/command_line.h"

#include "ralph/core/config.h"
#include "ralph/core/setting_names.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace ralph::cli {
namespace {

struct Parsed {
  ParsedCommand command;
  std::string err;
};

Parsed parse(const std::vector<std::string>& args) {
  std::vector<std::string> words{"ralph"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(words.size());
  for (std::string& word : words) {
    argv.push_back(word.data());
  }
  ::testing::internal::CaptureStderr();
  ParsedCommand command = parse_command_line(static_cast<int>(argv.size()), argv.data());
  return Parsed{.command = std::move(command), .err = ::testing::internal::GetCapturedStderr()};
}

TEST(CommandLine, DurationsAndCountsAsTheHelpPromises) {
  const auto parsed = parse(
      {"run", "fix it", "--time-budget", "1.5m", "--token-budget", "200k", "--max-tokens", "8k"});
  ASSERT_EQ(parsed.command.exit_code, -1) << parsed.err;
  EXPECT_EQ(parsed.command.name, CommandName::run);
  std::map<std::string, std::string> values;
  for (const auto& flag : parsed.command.run.overrides) {
    values[flag.key] = flag.value;
  }
  EXPECT_EQ(values, (std::map<std::string, std::string>{{"agent.max_tokens", "8k"},
                                                        {"budget.max_time", "1.5m"},
                                                        {"budget.max_tokens", "200k"}}));
}

TEST(CommandLine, HookTakesTheVerifierFlagsAndItsBudgets) {
  const auto parsed = parse({"hook", "--agent", "gemini", "--verify-cmd", "make test",
                             "--max-iterations", "2", "--max-time", "10m"});
  ASSERT_EQ(parsed.command.exit_code, -1) << parsed.err;
  EXPECT_EQ(parsed.command.name, CommandName::hook);
  EXPECT_EQ(parsed.command.hook.agent, "gemini");
  std::map<std::string, std::string> values;
  for (const auto& flag : parsed.command.run.overrides) {
    values[flag.key] = flag.value;
  }
  EXPECT_EQ(values, (std::map<std::string, std::string>{{"budget.max_time", "10m"},
                                                        {"loop.max_iterations", "2"},
                                                        {"verify.commands", "make test"}}));
}

TEST(CommandLine, AMistypedHookIsExitOneSinceTheAgentCliReadsTwoAsABlock) {
  EXPECT_EQ(parse({"hook", "--agent", "cursor"}).command.exit_code, 1);
  EXPECT_EQ(parse({"hook", "--max-time", "soon"}).command.exit_code, 1);
  // install is a person's command: the usual 2.
  EXPECT_EQ(parse({"hook", "install", "claude", "--user", "--project"}).command.exit_code, 2);
  const auto install = parse({"hook", "install", "codex", "--user"});
  ASSERT_EQ(install.command.exit_code, -1) << install.err;
  EXPECT_EQ(install.command.name, CommandName::hook_install);
  EXPECT_EQ(install.command.hook.target, "codex");
  EXPECT_TRUE(install.command.hook.user);
  EXPECT_EQ(parse({"hook", "uninstall", "gemini"}).command.name, CommandName::hook_uninstall);
}

TEST(CommandLine, BadValueNamesCommandFlagValueAndTheForms) {
  const auto parsed = parse({"run", "fix it", "--time-budget", "10x"});
  EXPECT_EQ(parsed.command.exit_code, 2);
  EXPECT_EQ(parsed.err, "ralph run: --time-budget '10x': expected a duration like 90s, 1.5m, 2h "
                        "(0: no limit)\n");
  const auto resumed = parse({"sessions", "resume", "abc", "--token-budget", "1.2345k"});
  EXPECT_EQ(resumed.err, "ralph sessions resume: --token-budget '1.2345k': expected a count like "
                         "4096, 200k, 1.5k, 2M (0: no limit)\n");
}

TEST(CommandLine, PruneAgeIsADuration) {
  const auto parsed = parse({"sessions", "prune", "--older-than", "1h30m"});
  ASSERT_EQ(parsed.command.exit_code, -1) << parsed.err;
  EXPECT_EQ(parsed.command.sessions.older_than, std::chrono::minutes(90));
  const auto bad = parse({"sessions", "prune", "--older-than", "soon"});
  EXPECT_EQ(bad.command.exit_code, 2);
  EXPECT_EQ(bad.err, "ralph sessions prune: --older-than 'soon': expected a duration like 90s, "
                     "1.5m, 2h or 30d\n");
}

TEST(CommandLine, EmptyGoalOrQueryIsAUsageError) {
  EXPECT_EQ(parse({"run", " \t"}).err, "ralph run: the goal is empty; say what to do, in words. "
                                       "See 'ralph run --help'.\n");
  const auto qa = parse({"qa", "--doc", "d.txt", "--query", ""});
  EXPECT_EQ(qa.command.exit_code, 2);
  EXPECT_EQ(qa.err, "ralph qa: --query is empty; ask a question or give a task. See 'ralph qa "
                    "--help'.\n");
}

std::map<std::string, std::string> override_values(const ParsedCommand& command) {
  std::map<std::string, std::string> values;
  for (const auto& flag : command.run.overrides) {
    values[flag.key] = flag.value;
  }
  return values;
}

TEST(CommandLine, HeartbeatTakesAnIntervalTicksAndTheRunFlags) {
  const auto parsed = parse({"heartbeat", "--every", "1.5h", "--ticks", "3", "--wait", "--model",
                             "openai/m", "--judge", "anthropic/j", "--verify-cmd", "make test"});
  ASSERT_EQ(parsed.command.exit_code, -1) << parsed.err;
  EXPECT_EQ(parsed.command.name, CommandName::heartbeat);
  EXPECT_EQ(parsed.command.heartbeat.every, std::chrono::minutes(90));
  EXPECT_EQ(parsed.command.heartbeat.ticks, 3);
  EXPECT_TRUE(parsed.command.heartbeat.wait);
  EXPECT_EQ(override_values(parsed.command),
            (std::map<std::string, std::string>{{"judge.model", "anthropic/j"},
                                                {"model", "openai/m"},
                                                {"verify.commands", "make test"}}));
  const auto once = parse({"heartbeat"});
  ASSERT_EQ(once.command.exit_code, -1) << once.err;
  EXPECT_EQ(once.command.heartbeat.every.count(), 0);
}

TEST(CommandLine, HeartbeatVerificationTurnsOffByEitherFlag) {
  for (const std::vector<std::string>& off :
       {std::vector<std::string>{"heartbeat", "--no-verify-heartbeat"},
        std::vector<std::string>{"heartbeat", "--verify-heartbeat=false"}}) {
    const auto parsed = parse(off);
    ASSERT_EQ(parsed.command.exit_code, -1) << parsed.err;
    EXPECT_EQ(override_values(parsed.command).at("loop.verify_heartbeat"), "false") << off[1];
  }
  const auto on = parse({"heartbeat", "--verify-heartbeat"});
  EXPECT_EQ(override_values(on.command).at("loop.verify_heartbeat"), "true");
  const auto bad = parse({"heartbeat", "--verify-heartbeat=maybe"});
  EXPECT_EQ(bad.command.exit_code, 2);
  EXPECT_NE(bad.err.find("--verify-heartbeat 'maybe'"), std::string::npos) << bad.err;
}

TEST(CommandLine, HeartbeatRefusesABadIntervalAndTicksWithoutOne) {
  const auto bad = parse({"heartbeat", "--every", "soon"});
  EXPECT_EQ(bad.command.exit_code, 2);
  EXPECT_EQ(bad.err, "ralph heartbeat: --every 'soon': expected a duration like 90s, 1.5m, 2h, "
                     "more than 0\n");
  EXPECT_EQ(parse({"heartbeat", "--every", "0s"}).command.exit_code, 2);
  const auto ticks = parse({"heartbeat", "--ticks", "3"});
  EXPECT_EQ(ticks.command.exit_code, 2);
  EXPECT_EQ(ticks.err, "ralph heartbeat: --ticks needs --every (without it there is one tick). "
                       "See 'ralph heartbeat --help'.\n");
  EXPECT_EQ(parse({"heartbeat", "--every", "1s", "--ticks", "0"}).command.exit_code, 2);
}

TEST(CommandLine, BatchTakesTheGoalsFileItsOwnBudgetsAndTheRunFlags) {
  const auto ok = parse({"batch", "goals.jsonl", "-j", "16", "--batch-token-budget", "2M",
                         "--batch-time-budget", "1h", "--results", "r.jsonl", "--max-iterations",
                         "4", "--verify-cmd", "make test"});
  ASSERT_EQ(ok.command.exit_code, -1) << ok.err;
  EXPECT_EQ(ok.command.name, CommandName::batch);
  EXPECT_EQ(ok.command.batch.goals_file, "goals.jsonl");
  EXPECT_EQ(ok.command.batch.concurrency, 16);
  EXPECT_EQ(ok.command.batch.token_budget, "2M");
  EXPECT_EQ(ok.command.batch.results_file, "r.jsonl");
  EXPECT_EQ(ok.command.run.overrides.size(), 2u);
  EXPECT_EQ(parse({"batch", "g.jsonl", "--batch-cost-budget", "lots"}).err,
            "ralph batch: --batch-cost-budget 'lots': expected an amount in USD like 5, 0.50, $2 "
            "(0: no limit)\n");
  EXPECT_EQ(parse({"batch", "g.jsonl", "--concurrency", "0"}).command.exit_code, 2);
  EXPECT_EQ(parse({"batch", "g.jsonl", "--no-store"}).command.exit_code, 2);
  EXPECT_EQ(parse({"batch"}).command.exit_code, 2);
}

TEST(CommandLine, BatchQueueStatusExportAndWorkerTakeTheirFlags) {
  const auto queued = parse({"batch", "g.jsonl", "--queue", "postgresql://db/q", "--name", "n"});
  ASSERT_EQ(queued.command.exit_code, -1) << queued.err;
  EXPECT_EQ(queued.command.name, CommandName::batch);
  EXPECT_EQ(queued.command.batch.queue, "postgresql://db/q");
  EXPECT_EQ(queued.command.batch.name, "n");
  EXPECT_EQ(parse({"batch"}).err,
            "ralph batch: the goals file is required. See 'ralph batch --help'.\n");

  const auto status = parse({"batch", "status", "--queue", "postgresql://db/q", "--json"});
  ASSERT_EQ(status.command.exit_code, -1) << status.err;
  EXPECT_EQ(status.command.name, CommandName::batch_status);
  EXPECT_TRUE(status.command.run.json);
  const auto exported =
      parse({"batch", "export", "--queue", "postgresql://db/q", "--name", "n", "-o", "r.jsonl"});
  ASSERT_EQ(exported.command.exit_code, -1) << exported.err;
  EXPECT_EQ(exported.command.name, CommandName::batch_export);
  EXPECT_EQ(exported.command.batch.output_file, "r.jsonl");
  EXPECT_EQ(parse({"batch", "export", "--queue", "postgresql://db/q"}).command.exit_code, 2);

  const auto worker =
      parse({"worker", "--queue", "postgresql://db/q", "-j", "64", "--lease", "2s", "--push",
             "origin", "--workdir", "/w", "--exit-when-empty", "--store", "/s/ralph.db"});
  ASSERT_EQ(worker.command.exit_code, -1) << worker.err;
  EXPECT_EQ(worker.command.name, CommandName::worker);
  EXPECT_EQ(worker.command.worker.concurrency, 64);
  EXPECT_EQ(worker.command.worker.lease, std::chrono::seconds(2));
  EXPECT_EQ(worker.command.worker.push, "origin");
  EXPECT_TRUE(worker.command.worker.exit_when_empty);
  ASSERT_EQ(worker.command.run.overrides.size(), 1u);
  EXPECT_EQ(worker.command.run.overrides[0].key, "store.url");
  EXPECT_EQ(parse({"worker", "--queue", "postgresql://db/q", "--lease", "soon"}).err,
            "ralph worker: --lease 'soon': expected a duration like 90s, 1.5m, 2h, at least "
            "0.3s\n");
}

TEST(CommandLine, ServeMaxStreamsSetsHowManyStreamsTheServerHolds) {
  const auto fallback = parse({"serve"});
  ASSERT_EQ(fallback.command.exit_code, -1) << fallback.err;
  EXPECT_EQ(fallback.command.serve.max_streams, 64);
  const auto many = parse({"serve", "--max-streams", "500"});
  ASSERT_EQ(many.command.exit_code, -1) << many.err;
  EXPECT_EQ(many.command.serve.max_streams, 500);
  const auto none = parse({"serve", "--max-streams", "0"});
  EXPECT_EQ(none.command.exit_code, 2);
  EXPECT_EQ(none.err, "ralph serve: --max-streams: Value 0 not in range 1 to 4096. See 'ralph "
                      "serve --help'.\n");
}

TEST(CommandLine, MissingCommandListsTheCommands) {
  EXPECT_EQ(parse({}).err,
            "ralph: a command is required (run, chat, qa, task, demo, sessions, hook, "
            "heartbeat, batch, worker, serve, mcp). See 'ralph --help'.\n");
  EXPECT_EQ(parse({"sessions"}).err,
            "ralph sessions: a command is required (list, show, resume, export, rm, prune, copy). "
            "See 'ralph sessions --help'.\n");
  EXPECT_EQ(parse({"qa", "--query", "q"}).err,
            "ralph qa: --doc is required. See 'ralph qa --help'.\n");
}

TEST(CommandLine, TheFirstStrayWordIsNamedWhereItWasTyped) {
  EXPECT_EQ(parse({"--bogus", "run", "x"}).err,
            "ralph: unknown option '--bogus'. See 'ralph --help'.\n");
  EXPECT_EQ(parse({"run", "fix", "the", "bug"}).err,
            "ralph run: unexpected argument 'the' (the goal is one argument: put it in quotes). "
            "See 'ralph run --help'.\n");
  EXPECT_EQ(parse({"sessions", "show", "a", "b"}).err,
            "ralph sessions show: unexpected argument 'b'. See 'ralph sessions show --help'.\n");
  EXPECT_EQ(parse({"qa", "--doc", "d", "--qeury", "q"}).err,
            "ralph qa: unknown option '--qeury'; did you mean '--query'? See 'ralph qa --help'.\n")
      << "a stray option wins over the missing --query it caused";
}

// The words before a flag for each command the settings table names.
std::vector<std::string> command_words_for(std::string_view command) {
  if (command == "run") {
    return {"run", "the goal"};
  }
  if (command == "qa" || command == "task") {
    return {std::string(command), "--doc", "d.txt", "--query", "q"};
  }
  return {std::string(command)};
}

// A value `key` takes, from a few of the kinds keys have.
std::string a_value_of(std::string_view key) {
  for (const char* value : {"1", "true", "append", "always", "exact", "openai/m", "x"}) {
    if (!check_config_text(key, value)) {
      return value;
    }
  }
  ADD_FAILURE() << "no value for " << key;
  return {};
}

TEST(CommandLine, EveryFlagOfTheSettingsTableSetsItsKeyInTheCommandsItNames) {
  int checked = 0;
  for (const SettingNames& names : setting_names()) {
    for (const SettingFlag& flag : names.flags) {
      std::vector<std::string> commands;
      for (std::string_view rest = flag.commands.empty() ? "run" : flag.commands; !rest.empty();) {
        const std::size_t comma = rest.find(", ");
        commands.emplace_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? "" : rest.substr(comma + 2);
      }
      const std::string name(flag_name(flag));
      for (const std::string& command : commands) {
        std::vector<std::string> args = command_words_for(command);
        args.push_back(name);
        std::string value(flag.fixed);
        if (flag.form == FlagForm::value || flag.form == FlagForm::list_item) {
          value = a_value_of(flag.key);
          args.push_back(value);
        }
        const auto parsed = parse(args);
        ASSERT_EQ(parsed.command.exit_code, -1) << command << " " << name << ": " << parsed.err;
        ASSERT_EQ(parsed.command.run.overrides.size(), 1u) << command << " " << name;
        const ConfigOverride& set = parsed.command.run.overrides.front();
        EXPECT_EQ(set.key, flag.key) << command << " " << name;
        EXPECT_EQ(set.value, value) << command << " " << name;
        EXPECT_EQ(set.flag, name) << command << " " << name;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 50);
}

TEST(CommandLine, ARepeatedListFlagReplacesTheListOnceThenAdds) {
  const auto parsed =
      parse({"run", "fix it", "--verify-cmd", "make", "--verify-cmd", "make check"});
  ASSERT_EQ(parsed.command.exit_code, -1) << parsed.err;
  const auto& overrides = parsed.command.run.overrides;
  ASSERT_EQ(overrides.size(), 2u);
  EXPECT_FALSE(overrides[0].append);
  EXPECT_TRUE(overrides[1].append);
  EXPECT_EQ(overrides[1].value, "make check");
}

TEST(CommandLine, TheHooksTimeBudgetAnswersToBothItsNames) {
  for (const char* name : {"--max-time", "--time-budget"}) {
    const auto parsed = parse({"hook", name, "10m"});
    ASSERT_EQ(parsed.command.exit_code, -1) << parsed.err;
    ASSERT_EQ(parsed.command.run.overrides.size(), 1u);
    EXPECT_EQ(parsed.command.run.overrides[0].key, "budget.max_time");
    EXPECT_EQ(parsed.command.run.overrides[0].flag, "--max-time") << "messages name the first";
  }
  EXPECT_NE(parse({"run", "x", "--max-time", "10m"}).err.find("unknown option '--max-time'"),
            std::string::npos);
}

} // namespace
} // namespace ralph::cli
