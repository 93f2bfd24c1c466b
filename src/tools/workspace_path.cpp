#include "workspace_path.h"

#include "ralph/core/try.h"

#include <utility>

namespace ralph::tools {

Result<WorkspacePath> resolve_in_workspace(const ToolContext& context, std::string_view path,
                                           Access access) {
  TRY_ASSIGN(Workspace workspace, Workspace::open(context.workspace));
  TRY_ASSIGN(std::filesystem::path absolute, workspace.resolve(path, access));
  return WorkspacePath{std::move(workspace), std::move(absolute)};
}

} // namespace ralph::tools
