#include "cli/usage_hint.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ralph::cli {
namespace {

const std::vector<std::string> k_commands{"run", "qa", "task", "demo", "sessions"};
const std::vector<std::string> k_options{
    "--help",        "-h",          "--model", "-m", "--max-steps", "--max-tokens",
    "--time-budget", "--workspace", "-w"};

TEST(UsageHint, UnknownCommandSuggestsTheClosest) {
  EXPECT_EQ(unknown_command("ralph", "rn", k_commands),
            "ralph: unknown command 'rn'; did you mean 'run'? See 'ralph --help'.");
  EXPECT_EQ(unknown_command("ralph", "frob", k_commands),
            "ralph: unknown command 'frob' (commands: run, qa, task, demo, sessions). See 'ralph "
            "--help'.");
}

TEST(UsageHint, AnUnknownSubcommandListsItsCommandsSiblings) {
  EXPECT_EQ(
      unknown_command("ralph sessions", "chat", {"list"}),
      "ralph sessions: unknown command 'chat' (commands: list). See 'ralph sessions --help'.");
}

TEST(UsageHint, UnknownOptionLeavesOutItsValue) {
  EXPECT_EQ(unknown_option("ralph run", "--modle", k_options),
            "ralph run: unknown option '--modle'; did you mean '--model'? See 'ralph run --help'.");
  EXPECT_EQ(unknown_option("ralph run", "--modle=openai/gpt-4.1", k_options),
            "ralph run: unknown option '--modle'; did you mean '--model'? See 'ralph run --help'.");
  EXPECT_EQ(unknown_option("ralph demo", "--frobnicate", k_options),
            "ralph demo: unknown option '--frobnicate'. See 'ralph demo --help'.");
}

TEST(UsageHint, UnexpectedArgumentAndOtherProblems) {
  EXPECT_EQ(unexpected_argument("ralph sessions list", "x", ""),
            "ralph sessions list: unexpected argument 'x'. See 'ralph sessions list --help'.");
  EXPECT_EQ(unexpected_argument("ralph run", "the", "quote it"),
            "ralph run: unexpected argument 'the' (quote it). See 'ralph run --help'.");
  EXPECT_EQ(usage_problem("ralph qa", "--doc is required"),
            "ralph qa: --doc is required. See 'ralph qa --help'.");
}

} // namespace
} // namespace ralph::cli
