#include "cli/mcp_command.h"

namespace ralph::cli {

Result<int> mcp_install_command(const RunArgs&, const McpArgs&, bool) {
  return fail(ErrorKind::usage, "ralph mcp install: not built yet");
}

} // namespace ralph::cli
