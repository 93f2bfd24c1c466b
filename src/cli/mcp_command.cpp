#include "cli/mcp_command.h"

namespace ralph::cli {

Result<int> mcp_list_command(const RunArgs&, const McpArgs&, bool) {
  return fail(ErrorKind::usage, "ralph mcp list: not built yet");
}

} // namespace ralph::cli
