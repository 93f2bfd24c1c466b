// Command notifications: a real program, the event JSON on its stdin.
#include "support/temp_dir.h"

#include "ralph/notify/command_hook.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace ralph::notify {
namespace {

using ::testing::HasSubstr;

TEST(CommandHook, TheProgramReadsTheEventJsonOnStdinWithoutAShell) {
  ralph::testing::TempDir dir;
  const auto out = dir.path() / "got.json";
  tools::PosixProcessRunner runner;
  const Notification notification = make_notification(
      NotifyEvent::failed, R"({"event":"failed","goal":"a; rm -rf x"})", 1, "session s");
  // Without a shell, "$1" is the argument as given, not expanded by anyone.
  const NotifyTarget target{.command = {"sh", "-c", "cat > \"$1\"", "sh", out.string()}};
  ASSERT_TRUE(run_command_hook(runner, target, notification, CancelToken()));
  EXPECT_EQ(dir.read("got.json"), notification.body);
}

TEST(CommandHook, AFailingProgramIsReportedWithWhatItSaid) {
  tools::PosixProcessRunner runner;
  const NotifyTarget target{.command = {"sh", "-c", "echo 'no route to pager' >&2; exit 3"}};
  const auto ran = run_command_hook(
      runner, target, make_notification(NotifyEvent::stalled, "{}", 1, "s"), CancelToken());
  ASSERT_FALSE(ran);
  EXPECT_EQ(ran.error().message, "exited with 3: no route to pager");
}

TEST(CommandHook, AProgramThatIsMissingIsReported) {
  tools::PosixProcessRunner runner;
  const NotifyTarget target{.command = {"/nonexistent/notifier"}};
  const auto ran = run_command_hook(
      runner, target, make_notification(NotifyEvent::stalled, "{}", 1, "s"), CancelToken());
  ASSERT_FALSE(ran);
  EXPECT_THAT(ran.error().message, HasSubstr("notifier"));
}

TEST(CommandHook, AProgramThatHangsIsStoppedAtItsTimeout) {
  tools::PosixProcessRunner runner;
  const NotifyTarget target{.command = {"sleep", "60"}, .timeout = std::chrono::seconds(1)};
  const auto ran = run_command_hook(
      runner, target, make_notification(NotifyEvent::stalled, "{}", 1, "s"), CancelToken());
  ASSERT_FALSE(ran);
  EXPECT_THAT(ran.error().message, HasSubstr("ran longer than its timeout of 1 s"));
}

} // namespace
} // namespace ralph::notify
