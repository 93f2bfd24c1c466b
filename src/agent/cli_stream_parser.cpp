#include "agent/text_stream.h"

#include "ralph/agent/cli_stream.h"

namespace ralph::agent {

std::unique_ptr<CliStreamParser> make_cli_stream_parser(CliFormat format) {
  switch (format) {
  case CliFormat::text:
    return std::make_unique<TextStream>();
  default:
    break;
  }
  return std::make_unique<TextStream>();
}

} // namespace ralph::agent
