#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ralph::testing {

// What a finished `ralph` process left behind.
struct RalphOutput {
  int exit_code = -1; // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

// Runs the real `ralph` binary with stdout and stderr sent to files, so a test can read them
// after the process ends, or signal it while it runs.
class RalphProcess {
public:
  // `env` entries are added to (or replace in) a copy of this process's environment; keys of
  // provider credentials are removed first so a developer's real keys never reach a test.
  RalphProcess(const std::vector<std::string>& args, const std::filesystem::path& cwd,
               const std::map<std::string, std::string>& env = {});
  ~RalphProcess();
  RalphProcess(const RalphProcess&) = delete;
  RalphProcess& operator=(const RalphProcess&) = delete;

  pid_t pid() const { return m_pid; }
  void signal(int sig) const;
  RalphOutput wait();

private:
  std::filesystem::path m_dir;
  pid_t m_pid = -1;
  bool m_waited = false;
};

// Runs ralph to completion.
RalphOutput run_ralph(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                      const std::map<std::string, std::string>& env = {});

} // namespace ralph::testing
