#pragma once

#include "ralph/agent/cli_stream.h"

#include <string>

namespace ralph::agent {

// A program with no machine-readable output: each line is text as it comes, and the whole stdout,
// trimmed, is the answer. Ending with output counts as success; whether the run failed is the
// exit code's to say, which the caller judges.
class TextStream final : public CliStreamParser {
public:
  void parse_line(std::string_view line, std::vector<CliEvent>& out) override;
  void finish(std::vector<CliEvent>& out) override;

private:
  std::string m_answer;
};

} // namespace ralph::agent
