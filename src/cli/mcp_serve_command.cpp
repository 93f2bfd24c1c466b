#include "cli/mcp_command.h"

namespace ralph::cli {

Result<int> mcp_serve_command(const RunArgs&) {
  return fail(ErrorKind::usage, "ralph mcp serve: not built yet");
}

} // namespace ralph::cli
