#pragma once

#include "ralph/tools/process_runner.h"
#include "ralph/tools/registry.h"
#include "ralph/tools/tool.h"

#include <chrono>
#include <cstddef>
#include <memory>

namespace ralph::tools {

struct ToolsOptions {
  // The longest a shell command may run; also its timeout when the model does not ask for less.
  std::chrono::seconds shell_timeout{120};
  // Bytes of shell output given back to the model (head and tail around a marker).
  std::size_t output_limit = 30000;
};

// The built-in tools, one by one. `runner` must outlive the shell tool. File tools resolve every
// path through a Workspace on ToolContext::workspace. All are safe to run concurrently.
std::unique_ptr<Tool> make_shell_tool(const ToolsOptions& options, ProcessRunner& runner);
std::unique_ptr<Tool> make_read_file_tool();
std::unique_ptr<Tool> make_write_file_tool();
std::unique_ptr<Tool> make_edit_file_tool();
std::unique_ptr<Tool> make_list_dir_tool();
std::unique_ptr<Tool> make_search_files_tool();

// A registry with all six: shell, read_file, write_file, edit_file, list_dir, search_files.
// `runner` must outlive the registry.
Registry make_builtin_registry(const ToolsOptions& options, ProcessRunner& runner);

} // namespace ralph::tools
