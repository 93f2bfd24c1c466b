#include "support/temp_dir.h"
#include "tool_harness.h"

#include "ralph/tools/process_runner.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <thread>
#include <vector>

namespace ralph::tools {
namespace {

using namespace std::chrono_literals;
using ralph::testing::TempDir;
using testing::eventually;
using testing::process_is_dead;
using testing::read_pid;

ProcessSpec shell(std::string command) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", std::move(command)};
  return spec;
}

ProcessResult run_ok(const ProcessSpec& spec, const CancelToken& cancel = {}) {
  PosixProcessRunner runner;
  auto result = runner.run(spec, cancel);
  EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
  return result ? *result : ProcessResult{};
}

TEST(PosixProcessRunner, ReportsExitCodes) {
  EXPECT_EQ(run_ok(shell("exit 0")).exit_code, 0);
  EXPECT_EQ(run_ok(shell("exit 3")).exit_code, 3);
  const ProcessResult result = run_ok(shell("exit 255"));
  EXPECT_EQ(result.exit_code, 255);
  EXPECT_EQ(result.term_signal, 0);
  EXPECT_FALSE(result.timed_out);
  EXPECT_FALSE(result.cancelled);
}

TEST(PosixProcessRunner, ReportsTheSignalThatKilledTheChild) {
  const ProcessResult result = run_ok(shell("kill -9 $$"));
  EXPECT_FALSE(result.exit_code.has_value());
  EXPECT_EQ(result.term_signal, SIGKILL);
}

TEST(PosixProcessRunner, MergesStderrIntoStdoutInOrder) {
  const ProcessResult result = run_ok(shell("echo one; echo two >&2; echo three"));
  EXPECT_EQ(result.output, "one\ntwo\nthree\n");
  EXPECT_EQ(result.err_output, "");
}

TEST(PosixProcessRunner, CapturesStderrSeparatelyWhenAsked) {
  ProcessSpec spec = shell("echo out; echo err >&2");
  spec.merge_stderr = false;
  const ProcessResult result = run_ok(spec);
  EXPECT_EQ(result.output, "out\n");
  EXPECT_EQ(result.err_output, "err\n");
  EXPECT_EQ(result.err_bytes, 4u);
}

TEST(PosixProcessRunner, SearchesPathForACommandWithoutSlash) {
  ProcessSpec spec;
  spec.argv = {"echo", "hello", "world"};
  EXPECT_EQ(run_ok(spec).output, "hello world\n");
}

TEST(PosixProcessRunner, RunsInTheGivenDirectory) {
  TempDir dir;
  ProcessSpec spec = shell("pwd");
  spec.cwd = dir.path();
  EXPECT_EQ(run_ok(spec).output, dir.path().string() + "\n");
}

TEST(PosixProcessRunner, SetsExtraEnvironmentVariables) {
  ProcessSpec spec = shell("echo \"$TEST_VALUE:$HOME\"");
  spec.env = {{"TEST_VALUE", "set"}, {"HOME", "/nowhere"}};
  EXPECT_EQ(run_ok(spec).output, "set:/nowhere\n");
}

TEST(PosixProcessRunner, FeedsStdinData) {
  ProcessSpec spec = shell("tr a-z A-Z");
  spec.stdin_data = "hello\n";
  EXPECT_EQ(run_ok(spec).output, "HELLO\n");
}

TEST(PosixProcessRunner, StdinIsEmptyWithoutData) {
  EXPECT_EQ(run_ok(shell("cat; echo end")).output, "end\n");
}

TEST(PosixProcessRunner, WritesLargeStdinWhileTheChildWritesLargeOutput) {
  // Both directions exceed a pipe buffer: a runner that wrote all stdin first would deadlock.
  ProcessSpec spec = shell("cat");
  spec.stdin_data = std::string(4 * 1024 * 1024, 'x');
  spec.output_limit = 100;
  const ProcessResult result = run_ok(spec);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output_bytes, spec.stdin_data.size());
}

TEST(PosixProcessRunner, SurvivesAChildThatClosesStdinEarly) {
  // Writing the rest fails with EPIPE; it must not raise SIGPIPE in the test process.
  ProcessSpec spec = shell("head -c 3");
  spec.stdin_data = std::string(4 * 1024 * 1024, 'y');
  const ProcessResult result = run_ok(spec);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output, "yyy");
}

TEST(PosixProcessRunner, KeepsDrainingPastTheOutputCap) {
  ProcessSpec spec = shell("yes | head -c 10000000; echo; echo the-end");
  spec.output_limit = 1000;
  const ProcessResult result = run_ok(spec);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_TRUE(result.output_truncated);
  EXPECT_EQ(result.output_bytes, 10000000u + 1 + 8);
  EXPECT_NE(result.output.find("bytes omitted ...]"), std::string::npos);
  EXPECT_EQ(result.output.substr(result.output.size() - 8), "the-end\n");
  EXPECT_LT(result.output.size(), 1100u);
}

TEST(PosixProcessRunner, TimeoutKillsTheWholeProcessGroup) {
  TempDir dir;
  ProcessSpec spec = shell("sleep 1000 & echo $! > grandchild; wait");
  spec.cwd = dir.path();
  spec.timeout = 1s;
  const ProcessResult result = run_ok(spec);
  EXPECT_TRUE(result.timed_out);
  EXPECT_FALSE(result.exit_code.has_value());
  const pid_t grandchild = read_pid(dir.path() / "grandchild");
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(eventually([&] { return process_is_dead(grandchild); }));
}

TEST(PosixProcessRunner, SilenceLongerThanTheIdleLimitEndsTheGroup) {
  TempDir dir;
  ProcessSpec spec = shell("echo started; sleep 1000 & echo $! > grandchild; wait");
  spec.cwd = dir.path();
  spec.idle_timeout = 300ms;
  const ProcessResult result = run_ok(spec);
  EXPECT_TRUE(result.idle_timed_out);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.output, "started\n");
  const pid_t grandchild = read_pid(dir.path() / "grandchild");
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(eventually([&] { return process_is_dead(grandchild); }));
}

TEST(PosixProcessRunner, OutputOnEitherPipeKeepsTheIdleLimitAway) {
  // Ten lines 300 ms apart, half on stderr: never 1.5 s of silence, though 3 s in all.
  ProcessSpec spec = shell("for i in 1 2 3 4 5; do sleep 0.3; echo out; sleep 0.3; echo err >&2; "
                           "done");
  spec.merge_stderr = false;
  spec.idle_timeout = 1500ms;
  const ProcessResult result = run_ok(spec);
  EXPECT_FALSE(result.idle_timed_out);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.err_output, "err\nerr\nerr\nerr\nerr\n");
}

TEST(PosixProcessRunner, EscalatesToSigkillWhenSigtermIsIgnored) {
  TempDir dir;
  // The stop comes only once the shell ignores SIGTERM: a timer could fire before the trap.
  ProcessSpec spec = shell("trap '' TERM; echo ready > ready; sleep 1000 & wait; wait");
  spec.cwd = dir.path();
  spec.timeout = 60s; // only turns a hang into a failure
  CancelToken cancel;
  std::thread canceller([&] {
    eventually([&] { return std::filesystem::exists(dir.path() / "ready"); });
    cancel.cancel();
  });
  const ProcessResult result = run_ok(spec, cancel);
  canceller.join();
  EXPECT_TRUE(result.cancelled);
  EXPECT_EQ(result.term_signal, SIGKILL);
}

TEST(PosixProcessRunner, BackgroundChildHoldingThePipeDoesNotHangTheRunner) {
  TempDir dir;
  ProcessSpec spec = shell("sleep 1000 & echo $! > grandchild; echo done");
  spec.cwd = dir.path();
  spec.timeout = 60s; // only turns a hang into a failure
  const ProcessResult result = run_ok(spec);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output, "done\n");
  const pid_t grandchild = read_pid(dir.path() / "grandchild");
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(eventually([&] { return process_is_dead(grandchild); }));
}

TEST(PosixProcessRunner, CancelFromAnotherThreadStopsTheGroup) {
  TempDir dir;
  ProcessSpec spec = shell("sleep 1000 & echo $! > grandchild; wait");
  spec.cwd = dir.path();
  spec.timeout = 60s; // only turns a hang into a failure
  CancelToken cancel;
  std::thread canceller([&] {
    eventually([&] { return read_pid(dir.path() / "grandchild") > 0; });
    cancel.cancel();
  });
  const ProcessResult result = run_ok(spec, cancel);
  canceller.join();
  EXPECT_TRUE(result.cancelled);
  EXPECT_FALSE(result.timed_out);
  EXPECT_TRUE(eventually([&] { return process_is_dead(read_pid(dir.path() / "grandchild")); }));
}

TEST(PosixProcessRunner, AlreadyCancelledTokenStopsAtOnce) {
  CancelToken cancel;
  cancel.cancel();
  ProcessSpec spec = shell("sleep 1000");
  const ProcessResult result = run_ok(spec, cancel);
  EXPECT_TRUE(result.cancelled);
}

TEST(PosixProcessRunner, HugeTimeoutMeansNoLimit) {
  ProcessSpec spec = shell("echo hi");
  spec.timeout = std::chrono::milliseconds::max();
  const ProcessResult result = run_ok(spec);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.output, "hi\n");
}

TEST(PosixProcessRunner, UnknownCommandIsASpawnError) {
  PosixProcessRunner runner;
  ProcessSpec spec;
  spec.argv = {"ralph-no-such-command-xyz"};
  const auto result = runner.run(spec, {});
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().kind, ErrorKind::subprocess);
  EXPECT_NE(result.error().message.find("ralph-no-such-command-xyz"), std::string::npos);
}

TEST(PosixProcessRunner, MissingWorkingDirectoryIsASpawnError) {
  PosixProcessRunner runner;
  ProcessSpec spec = shell("true");
  spec.cwd = "/nonexistent/ralph-dir";
  const auto result = runner.run(spec, {});
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().kind, ErrorKind::subprocess);
  EXPECT_NE(result.error().message.find("working directory /nonexistent/ralph-dir"),
            std::string::npos);
}

TEST(PosixProcessRunner, EmptyArgvIsAnError) {
  PosixProcessRunner runner;
  EXPECT_FALSE(runner.run(ProcessSpec{}, {}).has_value());
}

TEST(PosixProcessRunner, RunsConcurrentlyFromManyThreads) {
  PosixProcessRunner runner;
  std::vector<std::string> outputs(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    threads.emplace_back([&, i] {
      ProcessSpec spec = shell("echo " + std::to_string(i) + "; cat");
      spec.stdin_data = std::string(100000, 'z');
      auto result = runner.run(spec, {});
      outputs[i] = result ? result->output.substr(0, 2) : "error";
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_EQ(outputs[i], std::to_string(i) + "\n");
  }
}

TEST(PosixProcessRunner, LeavesNoChildBehind) {
  run_ok(shell("true"));
  ProcessSpec slow = shell("sleep 1000");
  slow.timeout = 100ms;
  run_ok(slow);
  // Every child was reaped: this process has none left.
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

} // namespace
} // namespace ralph::tools
