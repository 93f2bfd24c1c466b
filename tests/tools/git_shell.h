#pragma once

#include "ralph/tools/process_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace ralph::tools {

// Shell lines for setting up and inspecting git repositories in tests, with a fixed identity
// and no user configuration.
class GitShell {
public:
  // Runs `line` in `dir`, failing the test when it fails.
  void sh(const std::filesystem::path& dir, const std::string& line) {
    const auto result = m_runner.run(spec(dir, line), {});
    ASSERT_TRUE(result && result->exit_code == 0) << line << ": " << (result ? result->output : "");
  }
  // The trimmed output of `line` in `dir`.
  std::string out(const std::filesystem::path& dir, const std::string& line) {
    const auto result = m_runner.run(spec(dir, line), {});
    EXPECT_TRUE(result && result->exit_code == 0) << line << ": " << (result ? result->output : "");
    std::string text = result ? result->output : "";
    while (!text.empty() && text.back() == '\n') {
      text.pop_back();
    }
    return text;
  }

  PosixProcessRunner& runner() { return m_runner; }

private:
  static ProcessSpec spec(const std::filesystem::path& dir, const std::string& line) {
    ProcessSpec spec{.argv = {"/bin/sh", "-c", line}, .cwd = dir};
    spec.env = {{"GIT_AUTHOR_NAME", "t"},
                {"GIT_AUTHOR_EMAIL", "t@t"},
                {"GIT_COMMITTER_NAME", "t"},
                {"GIT_COMMITTER_EMAIL", "t@t"},
                {"GIT_CONFIG_GLOBAL", "/dev/null"}};
    return spec;
  }

  PosixProcessRunner m_runner;
};

} // namespace ralph::tools
