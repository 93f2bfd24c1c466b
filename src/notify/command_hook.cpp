#include "ralph/notify/command_hook.h"

#include <fmt/format.h>

namespace ralph::notify {
namespace {

std::string last_line(std::string_view output) {
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) {
    output.remove_suffix(1);
  }
  const auto start = output.rfind('\n');
  std::string_view line = start == std::string_view::npos ? output : output.substr(start + 1);
  constexpr std::size_t k_max = 200;
  return std::string(line.substr(0, k_max));
}

} // namespace

Result<void> run_command_hook(tools::ProcessRunner& runner, const NotifyTarget& target,
                              const Notification& notification, const CancelToken& cancel) {
  tools::ProcessSpec spec{.argv = target.command,
                          .timeout = target.timeout,
                          .output_limit = 4096,
                          .stdin_data = notification.body};
  auto result = runner.run(spec, cancel);
  if (!result) {
    return tl::unexpected(result.error());
  }
  if (result->exit_code == 0) {
    return {};
  }
  std::string how;
  if (result->cancelled) {
    return fail(ErrorKind::cancelled, "stopped");
  }
  if (result->timed_out) {
    how = fmt::format("ran longer than its timeout of {} s", target.timeout.count() / 1000.0);
  } else if (result->exit_code) {
    how = fmt::format("exited with {}", *result->exit_code);
  } else {
    how = fmt::format("was killed by signal {}", result->term_signal);
  }
  const std::string said = last_line(result->output);
  return fail(ErrorKind::subprocess, said.empty() ? how : fmt::format("{}: {}", how, said));
}

} // namespace ralph::notify
