#include "claude_cli.h"

#include "ralph/tools/process_runner.h"

#include <sstream>

namespace ralph::testing {

ClaudeRun run_claude(const std::filesystem::path& claude, const std::filesystem::path& cwd,
                     const std::string& prompt,
                     const std::vector<std::pair<std::string, std::string>>& env) {
  tools::PosixProcessRunner runner;
  tools::ProcessSpec spec;
  spec.argv = {claude.string(),
               "-p",
               prompt,
               "--output-format",
               "stream-json",
               "--verbose",
               "--permission-mode",
               "bypassPermissions"};
  spec.cwd = cwd;
  spec.timeout = std::chrono::minutes(3);
  spec.output_limit = std::size_t{16} << 20;
  spec.env = env;
  spec.merge_stderr = false;
  ClaudeRun run;
  const auto result = runner.run(spec, CancelToken());
  if (!result) {
    run.err = result.error().message;
    return run;
  }
  run.exit_code = result->exit_code.value_or(128 + result->term_signal);
  run.out = result->output;
  run.err = result->err_output;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    auto event = nlohmann::json::parse(line, nullptr, false);
    if (!event.is_discarded()) {
      run.events.push_back(std::move(event));
    }
  }
  return run;
}

} // namespace ralph::testing
