#include "shell_run.h"

#include <fmt/format.h>

#include <string.h>

namespace ralph::verify {

tools::ProcessSpec shell_spec(const std::string& command, const std::filesystem::path& workspace,
                              std::chrono::milliseconds timeout) {
  tools::ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", command};
  spec.cwd = workspace;
  spec.timeout = timeout;
  spec.env = {{"PAGER", "cat"}, {"GIT_PAGER", "cat"}, {"GIT_TERMINAL_PROMPT", "0"}};
  return spec;
}

std::optional<RunProblem> could_not_run(const tools::ProcessResult& result,
                                        std::string_view command,
                                        std::chrono::milliseconds timeout) {
  if (result.cancelled) {
    return RunProblem{
        Category::cancelled,
        fmt::format("`{}` was cancelled; it and everything it started were killed", command)};
  }
  if (result.timed_out) {
    return RunProblem{Category::timeout,
                      fmt::format("`{}` timed out after {} s; it and everything it "
                                  "started were killed",
                                  command, format_seconds(timeout))};
  }
  // The shell's own codes: 127 is "command not found", 126 "found but not executable". A test
  // suite may exit 127 for its own reasons, hence the look at what the shell said.
  const bool not_found =
      result.exit_code == 127 && (result.output.find("not found") != std::string::npos ||
                                  result.err_output.find("not found") != std::string::npos);
  if (not_found) {
    return RunProblem{
        Category::not_runnable,
        fmt::format("`{}` could not be run: command not found (exit code 127)", command)};
  }
  if (result.exit_code == 126) {
    return RunProblem{
        Category::not_runnable,
        fmt::format("`{}` could not be run: not executable (exit code 126)", command)};
  }
  return std::nullopt;
}

std::string describe_exit(const tools::ProcessResult& result) {
  if (result.exit_code) {
    return fmt::format("exit code {}", *result.exit_code);
  }
  if (result.term_signal != 0) {
    const char* name = sigabbrev_np(result.term_signal);
    return fmt::format("signal {} (SIG{})", result.term_signal, name != nullptr ? name : "?");
  }
  return "an unknown exit status";
}

std::string format_seconds(std::chrono::milliseconds duration) {
  if (duration.count() % 1000 == 0) {
    return std::to_string(duration.count() / 1000);
  }
  return fmt::format("{:.1f}", static_cast<double>(duration.count()) / 1000.0);
}

} // namespace ralph::verify
