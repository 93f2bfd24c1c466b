#pragma once

#include "ralph/agent/cli_stream.h"

#include <optional>
#include <string>

namespace ralph::agent {

// `aider --message … --no-pretty`: plain text. Each usage report ("Tokens: 12k sent, 1.2k cache
// write, 1.2k cache hit, 850 received." and "Cost: $0.02 message, $0.05 session.", on one line or
// two) adds its tokens to the process's total; the cost is the "session" figure, which aider
// keeps per process. aider's own lines that can be told apart reliably (the start-up
// announcements before the first other line, usage reports, "Applied edit to …", "Commit <hash>
// …", "Retrying in …") are neither text nor answer; every other line is text (a delta with its
// newline). aider exits 0 after a failed model call: a LiteLLM error line ("litellm.<Name>: …",
// what aider prints for one, per its source at 5dc9490b) with no usage report after it fails the
// run; errors aider words differently go unnoticed. finish() gives the verdict and, on success,
// the answer: the text, trimmed.
class AiderStream final : public CliStreamParser {
public:
  void parse_line(std::string_view line, std::vector<CliEvent>& out) override;
  void finish(std::vector<CliEvent>& out) override;

private:
  bool read_usage(std::string_view line);

  Usage m_usage;
  std::optional<double> m_cost;
  std::string m_answer;
  std::string m_error;    // the last model error not followed by a usage report
  bool m_preamble = true; // no line but announcements yet
};

} // namespace ralph::agent
