#include "result_tool.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/tools/builtin_tools.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <signal.h>
#include <string.h>

namespace ralph::tools {
namespace {

using std::chrono::milliseconds;

// Runs `/bin/sh -c COMMAND` in the workspace. Not a sandbox: the command can reach anything the
// user can; the workspace is only its working directory.
class ShellTool final : public ResultTool {
public:
  ShellTool(const ToolSettings& settings, ProcessRunner& runner)
      : m_runner(runner), m_settings(settings) {
    m_spec.name = "shell";
    m_spec.description = fmt::format(
        "Run a shell command with /bin/sh -c in the workspace directory and return its combined "
        "stdout and stderr followed by a line `exit code: N`. A nonzero exit code is reported, "
        "not treated as a failure of the tool. stdin is empty, so interactive programs get end "
        "of file; pass flags such as --yes or --no-pager. Output beyond {} bytes keeps its "
        "beginning and end around a `[... N bytes omitted ...]` line; redirect to a file and "
        "use search_files or read_file for long outputs. The command and everything it starts "
        "are killed after the timeout (default and maximum {} s). Background processes do not "
        "outlive the command.",
        m_settings.output_limit, m_settings.shell_timeout.count());
    m_spec.parameters = fmt::format(
        R"({{"type":"object","properties":{{)"
        R"("command":{{"type":"string","description":"The shell command line to run."}},)"
        R"("timeout":{{"type":"number","description":"Seconds before the command is killed; )"
        R"(at most {}."}}}},"required":["command"]}})",
        m_settings.shell_timeout.count());
  }

  const ToolSpec& spec() const override { return m_spec; }

private:
  Result<ToolResult> call(const Arguments& args, const ToolContext& context) override {
    TRY_ASSIGN(const std::string command, args.required_string("command"));
    if (command.find_first_not_of(" \t\r\n") == std::string::npos) {
      return error_result("invalid arguments: `command` is empty");
    }
    TRY_ASSIGN(const milliseconds timeout, timeout_from(args));

    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", command};
    spec.cwd = context.workspace;
    spec.timeout = timeout;
    spec.output_limit = m_settings.output_limit;
    spec.merge_stderr = true;
    // Keep tools that would wait on a pager or a password prompt from stalling until timeout.
    spec.env = {{"PAGER", "cat"}, {"GIT_PAGER", "cat"}, {"GIT_TERMINAL_PROMPT", "0"}};
    TRY_ASSIGN(const ProcessResult process, m_runner.run(spec, context.cancel));
    return to_tool_result(process, timeout);
  }

  Result<milliseconds> timeout_from(const Arguments& args) const {
    const milliseconds maximum = m_settings.shell_timeout;
    TRY_ASSIGN(const std::optional<double> seconds, args.number("timeout"));
    if (!seconds) {
      return maximum;
    }
    if (*seconds <= 0) {
      return fail(ErrorKind::tool, "invalid arguments: `timeout` must be a positive number of "
                                   "seconds");
    }
    const double ms = std::ceil(*seconds * 1000.0);
    // A configured maximum of 0 means no limit.
    if (maximum.count() > 0 && ms >= static_cast<double>(maximum.count())) {
      return maximum;
    }
    return milliseconds(static_cast<milliseconds::rep>(std::min(ms, 1e15)));
  }

  static ToolResult to_tool_result(const ProcessResult& process, milliseconds timeout) {
    ToolResult result;
    result.exit_code = process.exit_code;
    result.timed_out = process.timed_out;
    result.truncated = process.output_truncated;
    result.duration = process.duration;
    result.content = to_valid_utf8(process.output);
    if (result.content.empty()) {
      result.content = "(no output)";
    }
    if (result.content.back() != '\n') {
      result.content += '\n';
    }
    if (process.timed_out) {
      result.is_error = true;
      result.content += fmt::format("timed out after {} s; the command and everything it started "
                                    "were killed",
                                    format_seconds(timeout));
    } else if (process.cancelled) {
      result.is_error = true;
      result.content += "cancelled; the command and everything it started were killed";
    } else if (process.exit_code) {
      result.content += fmt::format("exit code: {}", *process.exit_code);
    } else if (process.term_signal != 0) {
      const char* name = sigabbrev_np(process.term_signal);
      result.content += fmt::format("killed by signal {} (SIG{})", process.term_signal,
                                    name != nullptr ? name : "?");
    } else {
      result.content += "exit status unknown";
    }
    return result;
  }

  static std::string format_seconds(milliseconds duration) {
    if (duration.count() % 1000 == 0) {
      return std::to_string(duration.count() / 1000);
    }
    return fmt::format("{:.1f}", static_cast<double>(duration.count()) / 1000.0);
  }

  ProcessRunner& m_runner;
  ToolSettings m_settings;
  ToolSpec m_spec;
};

} // namespace

std::unique_ptr<Tool> make_shell_tool(const ToolSettings& settings, ProcessRunner& runner) {
  return std::make_unique<ShellTool>(settings, runner);
}

} // namespace ralph::tools
