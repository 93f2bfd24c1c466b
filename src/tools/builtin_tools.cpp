#include "ralph/tools/builtin_tools.h"

namespace ralph::tools {

Registry make_builtin_registry(const ToolSettings& settings, ProcessRunner& runner) {
  Registry registry;
  registry.add(make_shell_tool(settings, runner));
  registry.add(make_read_file_tool());
  registry.add(make_write_file_tool());
  registry.add(make_edit_file_tool());
  registry.add(make_list_dir_tool());
  registry.add(make_search_files_tool());
  return registry;
}

} // namespace ralph::tools
