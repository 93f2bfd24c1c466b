// What `ralph run` shows while something takes long: a live status line on a terminal, a plain
// progress line now and then elsewhere. The fake provider server holds its answer until the test
// has seen what it waits for, so nothing here depends on timing.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

class ProgressEndToEnd : public ::testing::Test {
protected:
  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> all{"run",         "say hello",
                                 "--model",     "openai-compat/test-model",
                                 "--base-url",  server.base_url() + "/v1",
                                 "--workspace", workspace.path().string()};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }

  FakeProviderServer server;
  TempDir workspace;
  TempDir cwd;
};

bool has_colour(const std::string& text) {
  return std::regex_search(text, std::regex("\x1b\\[[0-9;]*m"));
}

TEST_F(ProgressEndToEnd, ATerminalGetsALiveStatusLineThatIsClearedBeforeTheAnswer) {
  HeldAnswers answers(server, "All done.");
  RalphProcess process(args({}), cwd.path(), {{"TERM", "xterm"}, {"NO_COLOR", ""}},
                       Streams::terminal);
  ASSERT_TRUE(process.read_until("waiting for the model", seconds(60))) << process.live();
  // Drawn again over the same line: the line erased, the status written anew.
  const std::size_t first = process.live().find("waiting for the model");
  EXPECT_TRUE(process.read_until("\r\x1b[K", seconds(30), first));
  EXPECT_TRUE(process.read_until("waiting for the model", seconds(30), first + 1));
  EXPECT_TRUE(std::regex_search(process.live(), std::regex("[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]"))) << process.live();
  EXPECT_TRUE(has_colour(process.live())) << "colour without NO_COLOR";
  answers.release();
  const RalphOutput result = process.wait();
  ASSERT_EQ(result.exit_code, 0) << result.out;

  const std::size_t status = result.out.rfind("waiting for the model");
  const std::size_t answer = result.out.find("All done.", status);
  ASSERT_NE(answer, std::string::npos) << result.out;
  EXPECT_THAT(result.out.substr(status, answer - status), HasSubstr("\r\x1b[K"))
      << "the status line is erased before the answer is written";
}

TEST_F(ProgressEndToEnd, NoColorKeepsTheStatusLineWithoutColour) {
  HeldAnswers answers(server, "All done.");
  RalphProcess process(args({}), cwd.path(), {{"TERM", "xterm"}, {"NO_COLOR", "1"}},
                       Streams::terminal);
  ASSERT_TRUE(process.read_until("waiting for the model", seconds(60))) << process.live();
  answers.release();
  const RalphOutput result = process.wait();
  ASSERT_EQ(result.exit_code, 0) << result.out;
  EXPECT_FALSE(has_colour(result.out)) << result.out;
}

TEST_F(ProgressEndToEnd, APipeGetsPlainProgressLinesAtTheInterval) {
  HeldAnswers answers(server, "All done.");
  RalphProcess process(args({"--progress-interval", "1"}), cwd.path(), {}, Streams::stderr_pipe);
  ASSERT_TRUE(process.read_until("… waiting for the model ·", seconds(60))) << process.live();
  answers.release();
  const RalphOutput result = process.wait();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "All done.\n");
  EXPECT_THAT(result.err, Not(HasSubstr("\x1b"))) << "no control sequences in a pipe";
  EXPECT_THAT(result.err, Not(HasSubstr("\r")));
}

TEST_F(ProgressEndToEnd, ARunningVerifierIsShown) {
  server.push(text_turn("All done."));
  // The command waits for a file the test makes once it saw the verifier announced.
  RalphProcess process(
      args({"--progress-interval", "1", "--verify-cmd", "while [ ! -e go ]; do sleep 0.05; done"}),
      cwd.path(), {}, Streams::stderr_pipe);
  const bool shown = process.read_until("verifying: command: while", seconds(60));
  workspace.write("go", "");
  ASSERT_TRUE(shown) << process.live();
  const RalphOutput result = process.wait();
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

} // namespace
} // namespace ralph::testing
