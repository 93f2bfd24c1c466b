#include "cli/interrupt.h"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <poll.h>

namespace ralph::cli {
namespace {

std::atomic<int> g_seen_by_previous{0};

extern "C" void count_signal(int /*signal*/) {
  g_seen_by_previous.fetch_add(1);
}

bool readable(int fd) {
  pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
  return ::poll(&ready, 1, 0) == 1 && (ready.revents & POLLIN) != 0;
}

// Installs a counting SIGINT/SIGTERM handler for the test and puts the old ones back after.
class CountingHandlers {
public:
  CountingHandlers() {
    struct sigaction action {};
    action.sa_handler = count_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &m_int);
    sigaction(SIGTERM, &action, &m_term);
    g_seen_by_previous = 0;
  }
  ~CountingHandlers() {
    sigaction(SIGINT, &m_int, nullptr);
    sigaction(SIGTERM, &m_term, nullptr);
  }
  CountingHandlers(const CountingHandlers&) = delete;
  CountingHandlers& operator=(const CountingHandlers&) = delete;

private:
  struct sigaction m_int {};
  struct sigaction m_term {};
};

TEST(InterruptPipe, EachSignalBecomesOneByteNamingIt) {
  CountingHandlers previous;
  InterruptPipe pipe;
  EXPECT_FALSE(readable(pipe.fd()));
  EXPECT_EQ(pipe.take(), std::nullopt);

  ASSERT_EQ(raise(SIGINT), 0);
  ASSERT_EQ(raise(SIGTERM), 0);
  EXPECT_TRUE(readable(pipe.fd()));
  EXPECT_EQ(pipe.take(), SIGINT);
  EXPECT_EQ(pipe.take(), SIGTERM);
  EXPECT_EQ(pipe.take(), std::nullopt);
  EXPECT_FALSE(readable(pipe.fd()));
  EXPECT_EQ(g_seen_by_previous, 0) << "the pipe, not the previous handler, got them";
}

TEST(InterruptPipe, PreviousHandlersComeBackOnDestruction) {
  CountingHandlers previous;
  { InterruptPipe pipe; }
  struct sigaction now {};
  sigaction(SIGINT, nullptr, &now);
  EXPECT_EQ(now.sa_handler, count_signal);
  sigaction(SIGTERM, nullptr, &now);
  EXPECT_EQ(now.sa_handler, count_signal);
  ASSERT_EQ(raise(SIGINT), 0);
  EXPECT_EQ(g_seen_by_previous, 1);
}

TEST(InterruptPipe, SignalsTakenInTimeNeverStopTheProcess) {
  CountingHandlers previous;
  InterruptPipe pipe;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(raise(SIGINT), 0);
    ASSERT_EQ(raise(SIGINT), 0);
    EXPECT_EQ(pipe.take(), SIGINT);
    EXPECT_EQ(pipe.take(), SIGINT);
  }
  EXPECT_EQ(pipe.take(), std::nullopt);
}

TEST(InterruptPipeDeathTest, ThreeSigintsNotTakenExitWith130) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        InterruptPipe pipe;
        raise(SIGINT);
        raise(SIGTERM); // not counted: only Ctrl-C repeated means "stop now"
        raise(SIGINT);
        raise(SIGINT);
        _exit(0);
      },
      ::testing::ExitedWithCode(130), "interrupted again, stopping now");
}

TEST(InterruptPipe, NestedInterruptHandlerTakesTheSignalsUntilItEnds) {
  CountingHandlers previous;
  InterruptPipe pipe;
  const CancelToken token;
  {
    InterruptHandler handler(token);
    ASSERT_EQ(raise(SIGINT), 0);
    EXPECT_TRUE(token.cancelled());
    EXPECT_EQ(pipe.take(), std::nullopt);
  }
  ASSERT_EQ(raise(SIGINT), 0);
  EXPECT_EQ(pipe.take(), SIGINT) << "the pipe gets the signals back";
}

TEST(InterruptHandler, FirstSignalCancelsAndPreviousHandlersComeBack) {
  CountingHandlers previous;
  const CancelToken token;
  {
    InterruptHandler handler(token);
    ASSERT_EQ(raise(SIGTERM), 0);
    EXPECT_TRUE(token.cancelled());
  }
  ASSERT_EQ(raise(SIGTERM), 0);
  EXPECT_EQ(g_seen_by_previous, 1);
}

} // namespace
} // namespace ralph::cli
