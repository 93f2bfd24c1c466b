#pragma once

#include "ralph/core/settings.h"
#include "ralph/tools/process_runner.h"
#include "ralph/tools/registry.h"
#include "ralph/tools/tool.h"

#include <memory>

namespace ralph::tools {

// The built-in tools, one by one. The shell tool's `shell_timeout` is the longest a command may
// run (and its timeout when the model asks for none); `output_limit` the bytes of its output the
// model gets back (head and tail around a marker). `runner` must outlive the shell tool. File tools
// resolve every path through a Workspace on ToolContext::workspace. All are safe to run
// concurrently.
std::unique_ptr<Tool> make_shell_tool(const ToolSettings& settings, ProcessRunner& runner);
std::unique_ptr<Tool> make_read_file_tool();
std::unique_ptr<Tool> make_write_file_tool();
std::unique_ptr<Tool> make_edit_file_tool();
std::unique_ptr<Tool> make_list_dir_tool();
std::unique_ptr<Tool> make_search_files_tool();

// A registry with all six: shell, read_file, write_file, edit_file, list_dir, search_files.
// `runner` must outlive the registry.
Registry make_builtin_registry(const ToolSettings& settings, ProcessRunner& runner);

} // namespace ralph::tools
