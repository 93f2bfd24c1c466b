// The interactive harness: a process whose stdin, stdout and stderr are one pseudo-terminal that
// is its controlling terminal, typed into by the test as a person would (what `ralph chat` is
// tested through).
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace ralph::testing {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;

RalphProcess shell(const std::string& script, const TempDir& cwd) {
  return RalphProcess({"-c", script}, cwd.path(), {}, Streams::interactive, nullptr, "/bin/sh");
}

TEST(InteractiveTerminal, TheProgramReadsWhatIsTypedOnItsControllingTerminal) {
  const TempDir cwd;
  auto process = shell("[ -t 0 ] && [ -t 1 ] && [ -t 2 ] && : </dev/tty && echo all-terminal; "
                       "echo size:$(stty size) term:$TERM; read x; echo got:$x",
                       cwd);
  ASSERT_TRUE(process.read_until("term:", seconds(30))) << process.live();
  process.write("hello there\r");
  const RalphOutput result = process.wait();
  EXPECT_EQ(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("all-terminal")) << "/dev/tty opens: a controlling terminal";
  EXPECT_THAT(result.out, HasSubstr("size:30 100 term:xterm"));
  EXPECT_THAT(result.out, HasSubstr("got:hello there\r\n"));
}

TEST(InteractiveTerminal, CtrlCTypedReachesTheForegroundProcessAsSigint) {
  const TempDir cwd;
  // noflsh: the terminal would otherwise discard its output queue just after sending the signal,
  // and with it what the trap printed if it was quick enough (ChatInput sets it for ralph chat).
  auto process = shell(
      "stty noflsh; trap 'echo caught-INT; exit 3' INT; echo ready; read x; echo no-signal", cwd);
  ASSERT_TRUE(process.read_until("ready", seconds(30))) << process.live();
  process.write("\x03");
  ASSERT_TRUE(process.read_until("caught-INT", seconds(30))) << process.live();
  const RalphOutput result = process.wait();
  EXPECT_EQ(result.exit_code, 3) << result.out;
}

TEST(InteractiveTerminal, CtrlDOnAnEmptyLineEndsTheInput) {
  const TempDir cwd;
  auto process = shell("echo ready; cat; echo cat-ended", cwd);
  ASSERT_TRUE(process.read_until("ready", seconds(30))) << process.live();
  process.write("line\r\x04");
  const RalphOutput result = process.wait();
  EXPECT_EQ(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("cat-ended"));
}

TEST(InteractiveTerminal, CtrlCTypedStopsARalphRunWithExit130) {
  FakeProviderServer server;
  const TempDir workspace;
  const TempDir cwd;
  FakeTurn slow = text_turn("too late");
  slow.fault = Fault::slow_first_byte;
  slow.first_byte_delay = seconds(30);
  server.push(slow);

  RalphProcess process({"run", "wait for it", "--model", "openai-compat/test-model", "--base-url",
                        server.base_url() + "/v1", "--workspace", workspace.path().string()},
                       cwd.path(), {}, Streams::interactive);
  // The request reaching the server means ralph is inside the model call.
  ASSERT_TRUE(server.wait_for_requests(1, seconds(30)));
  process.write("\x03");
  const RalphOutput result = process.wait();
  EXPECT_EQ(result.exit_code, 130) << result.out;
  EXPECT_THAT(result.out, HasSubstr("interrupted"));
}

} // namespace
} // namespace ralph::testing
