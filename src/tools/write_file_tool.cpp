#include "file_access.h"
#include "result_tool.h"
#include "workspace_path.h"

#include "ralph/core/try.h"
#include "ralph/tools/builtin_tools.h"

#include <fmt/format.h>

#include <system_error>

namespace ralph::tools {
namespace {

namespace fs = std::filesystem;

class WriteFileTool final : public ResultTool {
public:
  WriteFileTool() {
    m_spec.name = "write_file";
    m_spec.description =
        "Create a file, or replace a file's whole content, in the workspace. Missing parent "
        "directories are created. The write is atomic: readers see the old or the new file. To "
        "change part of an existing file, prefer edit_file.";
    m_spec.parameters =
        R"({"type":"object","properties":{)"
        R"("path":{"type":"string","description":"File path, relative to the workspace root."},)"
        R"("content":{"type":"string","description":"The complete new content of the file."}},)"
        R"("required":["path","content"]})";
  }

  const ToolSpec& spec() const override { return m_spec; }

private:
  Result<ToolResult> call(const Arguments& args, const ToolContext& context) override {
    TRY_ASSIGN(const std::string path, args.required_string("path"));
    TRY_ASSIGN(const std::string content, args.required_string("content"));
    TRY_ASSIGN(const WorkspacePath file, resolve_in_workspace(context, path, Access::write));

    std::error_code ec;
    const fs::file_status status = fs::status(file.absolute, ec);
    if (fs::is_directory(status)) {
      return error_result(fmt::format("{} is a directory; give a file path", path));
    }
    const bool existed = fs::exists(status);
    // The parent is inside the workspace: `resolve` returned a path free of symlinks.
    fs::create_directories(file.absolute.parent_path(), ec);
    if (ec) {
      return error_result(
          fmt::format("cannot create the directories for {}: {}", path, ec.message()));
    }
    TRY(write_file_atomically(file.absolute, content, path));
    ToolResult result;
    result.wrote_files = true;
    result.content = fmt::format("{} {} ({} bytes)", existed ? "overwrote" : "created",
                                 file.workspace.relative(file.absolute), content.size());
    return result;
  }

  ToolSpec m_spec;
};

} // namespace

std::unique_ptr<Tool> make_write_file_tool() {
  return std::make_unique<WriteFileTool>();
}

} // namespace ralph::tools
