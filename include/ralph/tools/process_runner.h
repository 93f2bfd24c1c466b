#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/core/waiter.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ralph::tools {

// Bytes of output kept when ProcessSpec::output_limit is 0.
inline constexpr std::size_t k_default_output_limit = 30000;

// What to run and how.
struct ProcessSpec {
  std::vector<std::string> argv;        // argv[0] without a slash is looked up in PATH
  std::filesystem::path cwd;            // empty: the caller's working directory
  std::chrono::milliseconds timeout{0}; // 0: no limit
  // Ended like a timeout when neither pipe gave a byte for this long; 0: no limit.
  std::chrono::milliseconds idle_timeout{0};
  std::size_t output_limit = 0; // bytes kept per stream (head and tail); 0: the default
  std::string stdin_data;       // empty: stdin is /dev/null
  std::vector<std::pair<std::string, std::string>> env; // set or override these variables
  bool merge_stderr = true; // stderr into the same pipe as stdout, interleaving preserved
  // Called with every chunk of stdout (stdout and stderr when merged) as it is read, on the
  // thread running the process: lets a caller see the whole stream, however large, while only
  // its head and tail are kept in ProcessResult::output.
  std::function<void(std::string_view)> on_output;
};

// How a run ended and what it printed. Output over the limit keeps its head and tail around a
// line "[... N bytes omitted ...]"; the bytes are raw (not necessarily UTF-8).
struct ProcessResult {
  std::optional<int> exit_code; // set when the child exited on its own
  int term_signal = 0;          // the signal that ended the child, 0 when none
  bool timed_out = false;
  bool idle_timed_out = false; // ProcessSpec::idle_timeout passed without output
  bool cancelled = false;
  std::string output;     // stdout, or stdout and stderr when merged
  std::string err_output; // stderr when not merged
  bool output_truncated = false;
  bool err_truncated = false;
  std::uint64_t output_bytes = 0; // everything the child wrote to each pipe, kept or not
  std::uint64_t err_bytes = 0;
  std::chrono::milliseconds duration{0};
};

// Runs child processes. The interface lets tests and library users substitute their own.
class ProcessRunner {
public:
  virtual ~ProcessRunner() = default;
  // Runs until the child exits, the timeout passes or `cancel` fires, and returns how it ended.
  // An Error (kind `subprocess`) means the process could not be started at all.
  virtual Result<ProcessResult> run(const ProcessSpec& spec, const CancelToken& cancel) = 0;
};

// The real runner: posix_spawn into a new session and process group, poll() over the pipes and a
// pidfd, through a Waiter (the thread blocks by default; an engine's fiber parks instead). On
// timeout, idle timeout or cancel the whole group gets SIGTERM, then SIGKILL after a
// short grace; when the child exits, whatever is left of its group is killed so background
// grandchildren cannot hold the pipes open. Never leaves a zombie. Stateless: `run` may be called
// from many threads at once.
class PosixProcessRunner final : public ProcessRunner {
public:
  PosixProcessRunner() = default;
  // `waiter` must outlive the runner.
  explicit PosixProcessRunner(Waiter& waiter) : m_waiter(&waiter) {}

  Result<ProcessResult> run(const ProcessSpec& spec, const CancelToken& cancel) override;

private:
  Waiter* m_waiter = nullptr; // null: poll(2) on the calling thread
};

} // namespace ralph::tools
