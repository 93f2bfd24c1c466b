#include "arguments.h"
#include "file_access.h"

#include "ralph/tools/builtin_tools.h"
#include "ralph/tools/workspace.h"

#include <fmt/format.h>

#include <system_error>

namespace ralph::tools {
namespace {

namespace fs = std::filesystem;

class WriteFileTool final : public Tool {
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

  ToolResult run(std::string_view arguments_json, const ToolContext& context) override {
    auto args = Arguments::parse(arguments_json);
    if (!args) {
      return error_result(args.error().message);
    }
    auto path = args->required_string("path");
    if (!path) {
      return error_result(path.error().message);
    }
    auto content = args->required_string("content");
    if (!content) {
      return error_result(content.error().message);
    }
    auto workspace = Workspace::open(context.workspace);
    if (!workspace) {
      return error_result(workspace.error().message);
    }
    auto resolved = workspace->resolve(*path, Access::write);
    if (!resolved) {
      return error_result(resolved.error().message);
    }

    std::error_code ec;
    const fs::file_status status = fs::status(*resolved, ec);
    if (fs::is_directory(status)) {
      return error_result(fmt::format("{} is a directory; give a file path", *path));
    }
    const bool existed = fs::exists(status);
    // The parent is inside the workspace: `resolve` returned a path free of symlinks.
    fs::create_directories(resolved->parent_path(), ec);
    if (ec) {
      return error_result(
          fmt::format("cannot create the directories for {}: {}", *path, ec.message()));
    }
    if (auto written = write_file_atomically(*resolved, *content, *path); !written) {
      return error_result(written.error().message);
    }
    ToolResult result;
    result.content = fmt::format("{} {} ({} bytes)", existed ? "overwrote" : "created",
                                 workspace->relative(*resolved), content->size());
    return result;
  }

private:
  ToolSpec m_spec;
};

} // namespace

std::unique_ptr<Tool> make_write_file_tool() {
  return std::make_unique<WriteFileTool>();
}

} // namespace ralph::tools
