#include "git_command.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"

#include <fmt/format.h>

namespace ralph::tools {

Result<std::string> git(ProcessRunner& runner, const std::filesystem::path& dir,
                        const GitCommand& command, const CancelToken& cancel) {
  ProcessSpec spec;
  spec.argv = {"git", "-C", dir.string()};
  spec.argv.insert(spec.argv.end(), command.args.begin(), command.args.end());
  spec.timeout = command.timeout;
  spec.merge_stderr = false;
  spec.stdin_data = command.input;
  // Patches and file lists can be long; the head-and-tail cap would cut them.
  spec.output_limit = 64 * 1024 * 1024;
  spec.env = {{"GIT_TERMINAL_PROMPT", "0"}};
  spec.env.insert(spec.env.end(), command.env.begin(), command.env.end());
  TRY_ASSIGN(const ProcessResult result, runner.run(spec, cancel));
  if (result.cancelled) {
    return fail(ErrorKind::cancelled,
                fmt::format("git {} in {}: cancelled", command.args.front(), dir.string()));
  }
  if (result.exit_code != 0) {
    const std::string what = first_line(trim(result.err_output), 300);
    return fail(ErrorKind::io, fmt::format("git {} in {}: {}", command.args.front(), dir.string(),
                                           what.empty() ? "failed" : what));
  }
  return command.trim ? std::string(trim(result.output)) : result.output;
}

Result<std::string> git(ProcessRunner& runner, const std::filesystem::path& dir,
                        std::vector<std::string> args, const CancelToken& cancel) {
  return git(runner, dir, GitCommand{.args = std::move(args)}, cancel);
}

} // namespace ralph::tools
