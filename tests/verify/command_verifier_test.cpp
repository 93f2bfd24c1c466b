#include "support/temp_dir.h"

#include "ralph/verify/command_verifier.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <thread>

namespace ralph::verify {
namespace {

using namespace std::chrono_literals;
using ralph::testing::TempDir;

// Writes the run number to `count` and fails the first `failures` runs.
std::string flaky_command(int failures) {
  return "n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > count; echo run $n; "
         "test $n -gt " +
         std::to_string(failures);
}

class CommandVerifierTest : public ::testing::Test {
protected:
  Verdict run(std::string command, const VerifySettings& settings = {},
              const CancelToken& cancel = {}) {
    Attempt attempt;
    attempt.workspace = m_dir.path();
    CommandVerifier verifier(std::move(command), settings, m_runner);
    return verifier.verify(attempt, cancel);
  }

  TempDir m_dir;
  tools::PosixProcessRunner m_runner;
};

TEST_F(CommandVerifierTest, PassesWhenTheCommandExitsZero) {
  const Verdict verdict = run("echo fine");
  EXPECT_EQ(verdict.verifier, "command: echo fine");
  EXPECT_EQ(verdict.result, Outcome::pass);
  EXPECT_EQ(verdict.category.name(), "");
  ASSERT_TRUE(verdict.evidence.has_value());
  const CommandEvidence& evidence = *verdict.evidence;
  EXPECT_EQ(evidence.command, "echo fine");
  EXPECT_EQ(evidence.exit_code, 0);
  EXPECT_EQ(evidence.output, "fine\n");
  EXPECT_EQ(evidence.runs, 1);
  EXPECT_EQ(evidence.passes, 1);
  EXPECT_EQ(evidence.started_at.size(), 24u);
  EXPECT_EQ(evidence.started_at.back(), 'Z');
  EXPECT_LE(evidence.started_at, evidence.finished_at);
}

TEST_F(CommandVerifierTest, RunsInTheWorkspace) {
  m_dir.write("marker.txt", "here");
  EXPECT_EQ(run("test -f marker.txt").result, Outcome::pass);
}

TEST_F(CommandVerifierTest, FailsWithTheExitCodeAndAnExcerptOfTheFailures) {
  const Verdict verdict = run("echo compiling; echo 'src/a.c:3:1: error: boom' >&2; "
                              "echo done; exit 2");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "test_failed");
  EXPECT_NE(verdict.feedback.find("failed with exit code 2"), std::string::npos);
  EXPECT_NE(verdict.feedback.find("src/a.c:3:1: error: boom"), std::string::npos);
  ASSERT_TRUE(verdict.evidence.has_value());
  EXPECT_EQ(verdict.evidence->exit_code, 2);
  EXPECT_EQ(verdict.evidence->output, "compiling\nsrc/a.c:3:1: error: boom\ndone\n");
  EXPECT_EQ(verdict.evidence->excerpt, verdict.evidence->output);
}

TEST_F(CommandVerifierTest, KeepsTheExcerptWithinItsBudget) {
  const Verdict verdict = run("i=0; while [ $i -lt 3000 ]; do echo line $i; i=$((i + 1)); done; "
                              "echo 'FAILED test_x'; exit 1",
                              {.excerpt_chars = 500});
  ASSERT_TRUE(verdict.evidence.has_value());
  EXPECT_LE(verdict.evidence->excerpt.size(), 500u);
  EXPECT_NE(verdict.evidence->excerpt.find("FAILED test_x"), std::string::npos);
  EXPECT_NE(verdict.evidence->output.find("line 1500\n"), std::string::npos);
}

TEST_F(CommandVerifierTest, FindsAFailureInTheMiddleOfAHugeOutputAndKeepsItWholeInAFile) {
  std::string log;
  for (int i = 0; i < 100'000; ++i) {
    if (i == 50'000) {
      log += "FAILED tests/test_mid.py::test_middle - assert 2 == 3\n";
    }
    log += "tests/test_case.py::test_case PASSED                                  [ 50%]\n";
  }
  ASSERT_GT(log.size(), 5'000'000u);
  m_dir.write("big.log", log);
  Attempt attempt;
  attempt.workspace = m_dir.path();
  attempt.iteration = 2;
  attempt.output_dir = m_dir.path() / "outputs";
  CommandVerifier verifier("cat big.log; exit 1", {}, m_runner);
  const Verdict verdict = verifier.verify(attempt, CancelToken());

  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_NE(verdict.feedback.find("FAILED tests/test_mid.py::test_middle"), std::string::npos);
  ASSERT_TRUE(verdict.evidence);
  EXPECT_NE(verdict.evidence->excerpt.find("FAILED tests/test_mid.py"), std::string::npos);
  EXPECT_LE(verdict.evidence->excerpt.size(), VerifySettings{}.excerpt_chars);
  ASSERT_FALSE(verdict.evidence->output_path.empty());
  const std::filesystem::path kept = verdict.evidence->output_path;
  EXPECT_EQ(kept.parent_path(), attempt.output_dir);
  EXPECT_EQ(kept.filename().string().substr(0, 29), "2-command-cat-big.log-exit-1-");
  std::ifstream in(kept, std::ios::binary);
  std::ostringstream read;
  read << in.rdbuf();
  const std::string whole = read.str();
  EXPECT_TRUE(whole == log) << "the file holds the output byte for byte";
  EXPECT_NE(verdict.feedback.find(kept.string()), std::string::npos);
  EXPECT_LT(verdict.evidence->output.size(), 1'100'000u) << "the record keeps head and tail";
}

TEST_F(CommandVerifierTest, ASmallOutputStaysWholeInTheRecordWithoutAFile) {
  Attempt attempt;
  attempt.workspace = m_dir.path();
  attempt.output_dir = m_dir.path() / "outputs";
  CommandVerifier verifier("echo FAIL: one; exit 1", {}, m_runner);
  const Verdict verdict = verifier.verify(attempt, CancelToken());
  ASSERT_TRUE(verdict.evidence);
  EXPECT_EQ(verdict.evidence->output, "FAIL: one\n");
  EXPECT_TRUE(verdict.evidence->output_path.empty());
  EXPECT_FALSE(std::filesystem::exists(attempt.output_dir));
}

TEST_F(CommandVerifierTest, ReportsASignalAsAFailure) {
  const Verdict verdict = run("kill -SEGV $$");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_NE(verdict.feedback.find("signal 11 (SIGSEGV)"), std::string::npos);
  EXPECT_FALSE(verdict.evidence->exit_code.has_value());
}

TEST_F(CommandVerifierTest, CommandNotFoundIsAnErrorNotAFailure) {
  const Verdict verdict = run("ralph-no-such-command-xyz --check");
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "not_runnable");
  EXPECT_NE(verdict.feedback.find("not found"), std::string::npos);
  EXPECT_EQ(verdict.evidence->exit_code, 127);
}

TEST_F(CommandVerifierTest, AnUnexecutableScriptIsAnError) {
  m_dir.write("check.sh", "#!/bin/sh\nexit 0\n");
  const Verdict verdict = run("./check.sh");
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "not_runnable");
  EXPECT_EQ(verdict.evidence->exit_code, 126);
}

TEST_F(CommandVerifierTest, Exit127WithoutNotFoundIsAFailure) {
  const Verdict verdict = run("echo suite broke; exit 127");
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.category.name(), "test_failed");
}

TEST_F(CommandVerifierTest, TimeoutIsAnError) {
  const Verdict verdict = run("echo started; sleep 1000", {.command_timeout = 1s});
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "timeout");
  EXPECT_NE(verdict.feedback.find("timed out after 1 s"), std::string::npos);
  EXPECT_NE(verdict.feedback.find("started"), std::string::npos);
  EXPECT_FALSE(verdict.evidence->exit_code.has_value());
}

TEST_F(CommandVerifierTest, RerunsAFlakyCommandUntilItPasses) {
  const Verdict verdict = run(flaky_command(2), {.runs = 3, .quorum = 1});
  EXPECT_EQ(verdict.result, Outcome::pass);
  EXPECT_EQ(verdict.evidence->runs, 3);
  EXPECT_EQ(verdict.evidence->passes, 1);
  EXPECT_EQ(verdict.evidence->output, "run 3\n");
  EXPECT_EQ(m_dir.read("count"), "3\n");
}

TEST_F(CommandVerifierTest, StopsRerunningOnceTheQuorumIsReached) {
  const Verdict verdict = run(flaky_command(0), {.runs = 5, .quorum = 2});
  EXPECT_EQ(verdict.result, Outcome::pass);
  EXPECT_EQ(verdict.evidence->runs, 2);
  EXPECT_EQ(verdict.evidence->passes, 2);
  EXPECT_EQ(m_dir.read("count"), "2\n");
}

TEST_F(CommandVerifierTest, StopsRerunningOnceTheQuorumIsOutOfReach) {
  // Fails twice, would pass after; with 3 runs and a quorum of 2 two failures decide it.
  const Verdict verdict = run(flaky_command(2), {.runs = 3, .quorum = 2});
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_EQ(verdict.evidence->runs, 2);
  EXPECT_EQ(verdict.evidence->passes, 0);
  EXPECT_NE(verdict.feedback.find("passed 0 of 2 runs, 2 needed"), std::string::npos);
  EXPECT_EQ(m_dir.read("count"), "2\n");
}

TEST_F(CommandVerifierTest, ErrorsWithoutRunningWhenAlreadyCancelled) {
  CancelToken cancel;
  cancel.cancel();
  const Verdict verdict = run("touch ran", {}, cancel);
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "cancelled");
  EXPECT_EQ(verdict.evidence->runs, 0);
  EXPECT_FALSE(std::filesystem::exists(m_dir.path() / "ran"));
}

TEST_F(CommandVerifierTest, StopsTheCommandWhenCancelled) {
  const auto fifo = m_dir.path() / "started";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  CancelToken cancel;
  // Opening a FIFO for reading blocks until the command opens it to write: no polling needed.
  std::thread canceller([&] {
    std::ifstream started(fifo);
    std::string line;
    std::getline(started, line);
    cancel.cancel();
  });
  const Verdict verdict = run("echo go > started; sleep 1000", {}, cancel);
  canceller.join();
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "cancelled");
  EXPECT_EQ(verdict.evidence->runs, 1);
}

// A runner that cannot start anything, as when posix_spawn fails.
class BrokenRunner final : public tools::ProcessRunner {
public:
  Result<tools::ProcessResult> run(const tools::ProcessSpec&, const CancelToken&) override {
    return fail(ErrorKind::subprocess, "posix_spawn failed: Resource temporarily unavailable");
  }
};

TEST(CommandVerifier, ASpawnFailureIsAnError) {
  BrokenRunner runner;
  CommandVerifier verifier("make check", {}, runner);
  const Verdict verdict = verifier.verify(Attempt{}, CancelToken{});
  EXPECT_EQ(verdict.result, Outcome::error);
  EXPECT_EQ(verdict.category.name(), "not_runnable");
  EXPECT_NE(verdict.feedback.find("posix_spawn failed"), std::string::npos);
}

TEST(CommandVerifier, FactoryRejectsInvalidOptions) {
  tools::PosixProcessRunner runner;
  EXPECT_TRUE(make_command_verifier("make check", {}, runner).has_value());
  for (const auto& [command, settings] :
       std::initializer_list<std::pair<std::string, VerifySettings>>{
           {"  ", {}},
           {"make", {.runs = 0}},
           {"make", {.runs = 2, .quorum = 3}},
           {"make", {.runs = 2, .quorum = 0}},
       }) {
    auto verifier = make_command_verifier(command, settings, runner);
    ASSERT_FALSE(verifier.has_value()) << command << " " << settings.runs;
    EXPECT_EQ(verifier.error().kind, ErrorKind::config);
  }
}

} // namespace
} // namespace ralph::verify
