#pragma once

#include "ralph/core/error.h"
#include "ralph/tools/tool.h"
#include "ralph/tools/workspace.h"

#include <filesystem>
#include <string_view>

namespace ralph::tools {

// A path the model gave, resolved inside the call's workspace. The workspace comes along for
// messages that show paths relative to its root.
struct WorkspacePath {
  Workspace workspace;
  std::filesystem::path absolute;
};

// Opens `context.workspace` and resolves `path` in it for `access`. Errors are those of
// Workspace::open and Workspace::resolve, unchanged (the file tools' tests pin their messages).
Result<WorkspacePath> resolve_in_workspace(const ToolContext& context, std::string_view path,
                                           Access access);

} // namespace ralph::tools
