#include "support/temp_dir.h"

#include "ralph/session/verify_answer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::session {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

TEST(VerifyAnswer, TheWorkspacesCommandsJudgeAnAnswerMadeElsewhere) {
  TempDir dir;
  dir.write("answer.txt", "42\n");
  Runtime runtime(Environment::of({}));
  engine::BlockingIo io;
  Config config;
  config.verify.commands = {"grep -qx 42 answer.txt"};
  const auto passed = verify_answer(runtime, config, dir.path(),
                                    {.goal = "write 42", .answer = "done"}, io, CancelToken());
  ASSERT_TRUE(passed) << passed.error().message;
  EXPECT_TRUE(passed->attempt.passed);
  EXPECT_TRUE(passed->verified);
  EXPECT_TRUE(passed->feedback.empty());

  config.verify.commands = {"grep -qx 43 answer.txt"};
  const auto failed =
      verify_answer(runtime, config, dir.path(),
                    {.goal = "write 43", .answer = "done", .iteration = 1}, io, CancelToken());
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_FALSE(failed->attempt.passed);
  EXPECT_THAT(failed->feedback, HasSubstr("grep -qx 43 answer.txt"));
  EXPECT_TRUE(failed->unchecked.empty()) << "a failing command is a verdict, not an error";
}

TEST(VerifyAnswer, WithoutAVerifierOrWithVerifierFirstItIsAConfigurationError) {
  TempDir dir;
  Runtime runtime(Environment::of({}));
  engine::BlockingIo io;
  const auto none = AnswerVerifier::prepare(runtime, Config{}, dir.path(), io, std::nullopt);
  ASSERT_FALSE(none);
  EXPECT_THAT(none.error().message, HasSubstr("no verifier is configured"));
  Config evidence;
  evidence.verify.commands = {"true"};
  evidence.evidence.enabled = true;
  const auto first = AnswerVerifier::prepare(runtime, evidence, dir.path(), io, std::nullopt);
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().kind, ErrorKind::config);
}

} // namespace
} // namespace ralph::session
