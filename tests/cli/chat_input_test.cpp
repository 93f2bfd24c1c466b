#include "cli/chat_input.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <future>
#include <poll.h>
#include <pty.h>
#include <string>
#include <termios.h>
#include <thread>
#include <unistd.h>

namespace ralph::cli {
namespace {

using Kind = InputEvent::Kind;
using namespace std::chrono_literals;

constexpr auto k_timeout = 10s;

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t wrote = ::write(fd, text.data(), text.size());
    ASSERT_GT(wrote, 0);
    text.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

struct Pipe {
  Pipe() {
    int fds[2];
    EXPECT_EQ(pipe2(fds, O_CLOEXEC), 0);
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    close_write();
    ::close(read);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_write() {
    if (write >= 0) {
      ::close(write);
      write = -1;
    }
  }
  int read = -1;
  int write = -1;
};

// A pseudo-terminal: the chat reads and writes the slave; the test types into and reads the
// master, as a terminal emulator would.
struct Pty {
  Pty() {
    const winsize size{.ws_row = 30, .ws_col = 100, .ws_xpixel = 0, .ws_ypixel = 0};
    EXPECT_EQ(openpty(&master, &slave, nullptr, nullptr, &size), 0);
  }
  ~Pty() {
    ::close(master);
    ::close(slave);
  }
  Pty(const Pty&) = delete;
  Pty& operator=(const Pty&) = delete;

  // Reads the master until what it showed since the last call contains `needle`.
  bool shows(std::string_view needle) {
    const auto deadline = std::chrono::steady_clock::now() + k_timeout;
    while (screen.find(needle, from) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd ready{.fd = master, .events = POLLIN, .revents = 0};
      if (left.count() <= 0 || ::poll(&ready, 1, static_cast<int>(left.count())) <= 0) {
        return false;
      }
      char buffer[1024];
      const ssize_t got = ::read(master, buffer, sizeof buffer);
      if (got <= 0) {
        return false;
      }
      screen.append(buffer, static_cast<std::size_t>(got));
    }
    from = screen.find(needle, from) + needle.size();
    return true;
  }

  int master = -1;
  int slave = -1;
  std::string screen; // everything the master showed
  std::size_t from = 0;
};

// Runs input.read(prompt) on a thread of its own, as the test must type while it waits.
class AsyncRead {
public:
  AsyncRead(ChatInput& input, std::string prompt)
      : m_input(input),
        m_result(std::async(std::launch::async, [&input, prompt] { return input.read(prompt); })) {}
  // The event, or a `woken` forced after the timeout so a broken read fails instead of hanging.
  InputEvent get() {
    if (m_result.wait_for(k_timeout) != std::future_status::ready) {
      ADD_FAILURE() << "read() did not return";
      m_input.wake();
    }
    return m_result.get();
  }

private:
  ChatInput& m_input;
  std::future<InputEvent> m_result;
};

TEST(ChatInputScript, LinesComeOneAtATimeAndALastLineWithoutNewlineBeforeTheEnd) {
  Pipe in;
  write_all(in.write, "one\r\ntwo\n\nthree");
  in.close_write();
  ChatInput input({}, in.read, -1);
  EXPECT_FALSE(input.interactive());
  for (const char* expected : {"one", "two", "", "three"}) {
    const auto event = input.read("you> ");
    EXPECT_EQ(event.kind, Kind::line);
    EXPECT_EQ(event.text, expected);
  }
  EXPECT_EQ(input.read("you> ").kind, Kind::end);
  EXPECT_EQ(input.read("you> ").kind, Kind::end) << "the end stays the end";
}

TEST(ChatInputScript, ALineLongerThanAnyBufferComesWhole) {
  Pipe in;
  const std::string long_line(300'000, 'x'); // more than the pipe holds: written as it is read
  std::thread writer([&] {
    write_all(in.write, long_line + "\nnext\n");
    in.close_write();
  });
  ChatInput input({}, in.read, -1);
  EXPECT_EQ(input.read("").text, long_line);
  EXPECT_EQ(input.read("").text, "next");
  writer.join();
}

TEST(ChatInputScript, WakeFromAnotherThreadEndsAReadThatWaitsForInput) {
  Pipe in;
  ChatInput input({}, in.read, -1);
  std::promise<void> reading;
  std::thread waker([&] {
    reading.get_future().wait();
    input.wake();
  });
  reading.set_value();
  EXPECT_EQ(input.read("").kind, Kind::woken);
  waker.join();
  write_all(in.write, "after\n");
  EXPECT_EQ(input.read("").text, "after") << "one wake() ends one wait";
}

TEST(ChatInputScript, SignalsOnAnyThreadEndAReadAndComeBeforeALineAlreadyThere) {
  Pipe in;
  ChatInput input({}, in.read, -1);
  // Delivered to another thread, as a Ctrl-C often lands on the worker running a turn.
  std::thread([] { ASSERT_EQ(raise(SIGINT), 0); }).join();
  EXPECT_EQ(input.read("").kind, Kind::interrupt);

  write_all(in.write, "queued\n");
  ASSERT_EQ(raise(SIGTERM), 0);
  EXPECT_EQ(input.read("").kind, Kind::terminate);
  EXPECT_EQ(input.read("").text, "queued");
}

TEST(ChatInputScript, WaitLeavesTheInputForTheNextRead) {
  Pipe in;
  write_all(in.write, "next turn\n");
  ChatInput input({}, in.read, -1);
  std::thread([&] { input.wake(); }).join();
  EXPECT_EQ(input.wait().kind, Kind::woken);
  ASSERT_EQ(raise(SIGINT), 0);
  EXPECT_EQ(input.wait().kind, Kind::interrupt);
  ASSERT_EQ(raise(SIGTERM), 0);
  EXPECT_EQ(input.wait().kind, Kind::terminate);
  EXPECT_EQ(input.read("").text, "next turn");
}

TEST(ChatInputTerminal, ATypedLineComesBackAfterThePrompt) {
  Pty pty;
  ChatInput input({}, pty.slave, pty.slave);
  EXPECT_TRUE(input.interactive());
  AsyncRead read(input, "you> ");
  ASSERT_TRUE(pty.shows("you> "));
  write_all(pty.master, "hello\r");
  const auto event = read.get();
  EXPECT_EQ(event.kind, Kind::line);
  EXPECT_EQ(event.text, "hello");
}

TEST(ChatInputTerminal, LinesAreEditedWithEmacsKeys) {
  Pty pty;
  ChatInput input({}, pty.slave, pty.slave);
  AsyncRead read(input, "> ");
  ASSERT_TRUE(pty.shows("> "));
  // Ctrl-A to the start, "x", Ctrl-E to the end, a backspace (DEL).
  write_all(pty.master, "abc\x01x\x05\x7f\r");
  EXPECT_EQ(read.get().text, "xab");
}

TEST(ChatInputTerminal, UnicodeTextComesBackAsUtf8) {
  Pty pty;
  ChatInput input({}, pty.slave, pty.slave);
  AsyncRead read(input, "> ");
  ASSERT_TRUE(pty.shows("> "));
  write_all(pty.master, "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x99\x82\r");
  EXPECT_EQ(read.get().text, "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x99\x82");
}

TEST(ChatInputTerminal, CtrlDOnAnEmptyLineEnds) {
  Pty pty;
  ChatInput input({}, pty.slave, pty.slave);
  AsyncRead read(input, "> ");
  ASSERT_TRUE(pty.shows("> "));
  write_all(pty.master, "\x04");
  EXPECT_EQ(read.get().kind, Kind::end) << pty.screen;
}

TEST(ChatInputTerminal, CtrlCAtThePromptDropsTheHalfTypedLine) {
  Pty pty;
  ChatInput input({}, pty.slave, pty.slave);
  {
    AsyncRead read(input, "> ");
    ASSERT_TRUE(pty.shows("> "));
    write_all(pty.master, "abc");
    ASSERT_TRUE(pty.shows("abc"));
    // What the terminal's Ctrl-C sends when this pty is the controlling terminal (e2e tests).
    ASSERT_EQ(kill(getpid(), SIGINT), 0);
    EXPECT_EQ(read.get().kind, Kind::interrupt);
    EXPECT_TRUE(pty.shows("^C\r\n")) << "the next prompt starts a line of its own";
  }
  AsyncRead again(input, "> ");
  ASSERT_TRUE(pty.shows("> "));
  write_all(pty.master, "x\r");
  EXPECT_EQ(again.get().text, "x");
}

TEST(ChatInputTerminal, WakeEndsTheWaitAtThePrompt) {
  Pty pty;
  ChatInput input({}, pty.slave, pty.slave);
  AsyncRead read(input, "> ");
  ASSERT_TRUE(pty.shows("> "));
  input.wake();
  EXPECT_EQ(read.get().kind, Kind::woken);
}

// The worker thread prints while the main thread waits at the prompt: libedit's editing mode must
// keep the terminal's output processing, or each "\n" would leave the next line where the last
// ended instead of at column 0.
TEST(ChatInputTerminal, OthersOutputStartsLinesAtColumnZeroWhileThePromptWaits) {
  Pty pty;
  termios before{};
  ASSERT_EQ(tcgetattr(pty.slave, &before), 0);
  ChatInput input({}, pty.slave, pty.slave);
  AsyncRead read(input, "> ");
  ASSERT_TRUE(pty.shows("> "));
  termios editing{};
  ASSERT_EQ(tcgetattr(pty.slave, &editing), 0);
  EXPECT_EQ(editing.c_lflag & ICANON, 0U) << "libedit reads keys one by one";
  EXPECT_NE(editing.c_oflag & OPOST, 0U);
  EXPECT_NE(editing.c_oflag & ONLCR, 0U);
  EXPECT_NE(editing.c_lflag & NOFLSH, 0U) << "a Ctrl-C must not discard what is printed after it";
  write_all(pty.slave, "one\ntwo\n");
  EXPECT_TRUE(pty.shows("one\r\ntwo\r\n"));
  write_all(pty.master, "\r");
  EXPECT_EQ(read.get().text, "");
  termios after{};
  ASSERT_EQ(tcgetattr(pty.slave, &after), 0);
  EXPECT_EQ(after.c_lflag & ICANON, 0U) << "the editing mode stays between lines";
  EXPECT_EQ(after.c_oflag, before.c_oflag);
}

// What is typed while the caller works on a line (a turn runs, its end is printed) waits for the
// next read; the terminal's line discipline would take a Ctrl-D as its own end of file.
TEST(ChatInputTerminal, ACtrlDTypedBetweenReadsEndsTheNextOne) {
  Pty pty;
  ChatInput input({}, pty.slave, pty.slave);
  {
    AsyncRead read(input, "> ");
    ASSERT_TRUE(pty.shows("> "));
    write_all(pty.master, "first\r");
    EXPECT_EQ(read.get().text, "first");
  }
  write_all(pty.master, "\x04");
  AsyncRead next(input, "> ");
  EXPECT_EQ(next.get().kind, Kind::end);
}

TEST(ChatInputTerminal, TheTerminalIsGivenBackAsItWasFound) {
  Pty pty;
  termios before{};
  ASSERT_EQ(tcgetattr(pty.slave, &before), 0);
  {
    ChatInput input({}, pty.slave, pty.slave);
    AsyncRead read(input, "> ");
    ASSERT_TRUE(pty.shows("> "));
    write_all(pty.master, "\r");
    EXPECT_EQ(read.get().kind, Kind::line);
  }
  termios after{};
  ASSERT_EQ(tcgetattr(pty.slave, &after), 0);
  EXPECT_EQ(after.c_lflag, before.c_lflag);
  EXPECT_EQ(after.c_iflag, before.c_iflag);
  EXPECT_EQ(after.c_oflag, before.c_oflag);
}

TEST(ChatInputTerminal, HistoryIsWrittenAtOnceAndTheUpArrowRecallsItInTheNextChat) {
  const testing::TempDir dir;
  const auto file = dir.path() / "state" / "history";
  {
    Pipe in;
    ChatInput first(file, in.read, -1);
    first.remember("first line");
    EXPECT_EQ(dir.read("state/history"), "first line\n") << "written before the chat ends";
    first.remember("  ");
    first.remember("second line");
  }
  EXPECT_EQ(dir.read("state/history"), "first line\nsecond line\n");

  Pty pty;
  ChatInput second(file, pty.slave, pty.slave);
  {
    AsyncRead read(second, "> ");
    ASSERT_TRUE(pty.shows("> "));
    write_all(pty.master, "\x1b[A\r");
    EXPECT_EQ(read.get().text, "second line");
  }
  AsyncRead read(second, "> ");
  ASSERT_TRUE(pty.shows("> "));
  write_all(pty.master, "\x1b[A\x1b[A\r");
  EXPECT_EQ(read.get().text, "first line");
}

TEST(ChatInputTerminal, RememberedLinesAreRecalledInTheSameChat) {
  Pty pty;
  ChatInput input({}, pty.slave, pty.slave);
  input.remember("/status");
  AsyncRead read(input, "> ");
  ASSERT_TRUE(pty.shows("> "));
  write_all(pty.master, "\x1b[A\r");
  EXPECT_EQ(read.get().text, "/status");
}

TEST(ChatInputScript, AHistoryFileThatCannotBeWrittenWarnsOnceAndTheChatGoesOn) {
  const testing::TempDir dir;
  dir.write("not-a-folder", "");
  Pipe in;
  write_all(in.write, "still here\n");
  ChatInput input(dir.path() / "not-a-folder" / "history", in.read, -1);
  ::testing::internal::CaptureStderr();
  input.remember("one");
  input.remember("two");
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warnings.find("cannot write the history file"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("not-a-folder/history"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("cannot", warnings.find("cannot") + 1), std::string::npos)
      << "one warning, not one per line: " << warnings;
  EXPECT_EQ(input.read("").text, "still here");
}

} // namespace
} // namespace ralph::cli
