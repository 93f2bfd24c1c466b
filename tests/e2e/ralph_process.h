#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace ralph::testing {

// What a finished `ralph` process left behind.
struct RalphOutput {
  int exit_code = -1; // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

// Where a ralph process writes.
enum class Streams {
  files,       // stdout and stderr to files, read after the end
  stderr_pipe, // stdout to a file; stderr to a pipe the test reads as it runs
  terminal,    // stdout and stderr to one pseudo-terminal the test reads as it runs
  // stdin, stdout and stderr on one pseudo-terminal (100x30, TERM=xterm unless `env` says other)
  // that is the process's controlling terminal, in a session of its own: the test types with
  // write(), and "\x03" sends SIGINT to its foreground process group as a person's Ctrl-C does.
  interactive,
};

// Runs the real `ralph` binary with stdout and stderr sent to files, so a test can read them
// after the process ends, or signal it while it runs; or to a pipe or a pseudo-terminal, so a
// test can follow what it shows live.
class RalphProcess {
public:
  // `env` entries are added to (or replace in) a copy of this process's environment; keys of
  // provider credentials are removed first so a developer's real keys never reach a test.
  // `input`, when given, is the process's stdin (else /dev/null; not with `interactive`).
  // `program` is ralph unless a test of this harness runs another.
  RalphProcess(const std::vector<std::string>& args, const std::filesystem::path& cwd,
               const std::map<std::string, std::string>& env = {}, Streams streams = Streams::files,
               const std::string* input = nullptr, const std::string& program = RALPH_BINARY);
  ~RalphProcess();
  RalphProcess(const RalphProcess&) = delete;
  RalphProcess& operator=(const RalphProcess&) = delete;

  pid_t pid() const { return m_pid; }
  void signal(int sig) const;
  // Interactive only: types `text` on the terminal ("\r" is Enter, "\x03" Ctrl-C, "\x04" Ctrl-D).
  void write(std::string_view text) const;
  // Live streams only: reads until what was read contains `needle` at or after byte `from`
  // (true), or `timeout` passed or the stream ended (false).
  bool read_until(const std::string& needle, std::chrono::milliseconds timeout,
                  std::size_t from = 0);
  // Everything read from the live stream so far.
  const std::string& live() const { return m_live; }
  // Waits for the end; a live stream is read to its end and returned as `err` (for a terminal,
  // stdout and stderr together).
  RalphOutput wait();

private:
  std::filesystem::path m_dir;
  Streams m_streams;
  int m_live_fd = -1; // the pipe's or the terminal's reading end
  std::string m_live;
  pid_t m_pid = -1;
  bool m_waited = false;
};

// Runs ralph to completion.
RalphOutput run_ralph(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                      const std::map<std::string, std::string>& env = {});

// Runs ralph to completion with `input` on its stdin.
RalphOutput run_ralph_with_input(const std::vector<std::string>& args,
                                 const std::filesystem::path& cwd, const std::string& input,
                                 const std::map<std::string, std::string>& env = {});

} // namespace ralph::testing
