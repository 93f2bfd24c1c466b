#include "agent/text_stream.h"

#include "ralph/core/text.h"

namespace ralph::agent {

void TextStream::parse_line(std::string_view line, std::vector<CliEvent>& out) {
  std::string text(line);
  text += '\n';
  m_answer += text;
  out.emplace_back(CliText{.text = std::move(text), .delta = true});
}

void TextStream::finish(std::vector<CliEvent>& out) {
  out.emplace_back(CliResult{.ok = true, .answer = std::string(trim(m_answer)), .error = {}});
}

} // namespace ralph::agent
