#include "file_access.h"
#include "result_tool.h"
#include "workspace_path.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/tools/builtin_tools.h"

#include <fmt/format.h>

#include <optional>
#include <system_error>
#include <vector>

namespace ralph::tools {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t k_max_depth = 5;
constexpr std::size_t k_max_entries = 1000;

struct Listing {
  std::vector<std::string> lines;
  bool capped = false;
  std::size_t unreadable = 0;
};

// Depth-first in name order, so a capped listing is still a complete prefix of the full one.
void list(const Workspace& workspace, const fs::path& dir, std::int64_t depth, Listing& out) {
  bool readable = true;
  const std::vector<fs::directory_entry> entries = sorted_entries(dir, readable);
  if (!readable) {
    ++out.unreadable;
  }
  std::error_code ec;
  for (const auto& entry : entries) {
    if (out.lines.size() >= k_max_entries) {
      out.capped = true;
      return;
    }
    const std::string shown = workspace.relative(entry.path());
    // Symlinks are shown, never followed: they may lead out of the workspace or into a loop.
    if (entry.is_symlink(ec)) {
      out.lines.push_back(
          fmt::format("{} -> {}", shown, fs::read_symlink(entry.path(), ec).string()));
      continue;
    }
    if (entry.is_directory(ec)) {
      out.lines.push_back(shown + "/");
      if (depth > 1) {
        list(workspace, entry.path(), depth - 1, out);
      }
      continue;
    }
    out.lines.push_back(shown);
  }
}

class ListDirTool final : public ResultTool {
public:
  ListDirTool() {
    m_spec.name = "list_dir";
    m_spec.description = fmt::format(
        "List a directory of the workspace: one path per line relative to the workspace root, "
        "sorted, directories ending in `/`, symlinks as `link -> target`. .git and .ralph are "
        "left out. depth 1 lists only the directory itself; up to {} descends into "
        "subdirectories. At most {} entries.",
        k_max_depth, k_max_entries);
    m_spec.parameters = fmt::format(
        R"({{"type":"object","properties":{{)"
        R"("path":{{"type":"string","description":"Directory, relative to the workspace root. Default \".\"."}},)"
        R"("depth":{{"type":"integer","minimum":1,"maximum":{},"description":"Levels to list. Default 1."}}}}}})",
        k_max_depth);
  }

  const ToolSpec& spec() const override { return m_spec; }
  bool read_only() const override { return true; }

private:
  Result<ToolResult> call(const Arguments& args, const ToolContext& context) override {
    TRY_ASSIGN(const std::optional<std::string> path, args.string("path"));
    TRY_ASSIGN(const std::optional<std::int64_t> depth, args.integer("depth"));
    const std::string shown = path.value_or(".");
    const std::int64_t levels = depth.value_or(1);
    if (levels < 1) {
      return error_result("invalid arguments: `depth` must be at least 1");
    }
    TRY_ASSIGN(const WorkspacePath dir, resolve_in_workspace(context, shown, Access::read));
    std::error_code ec;
    const fs::file_status status = fs::status(dir.absolute, ec);
    if (!fs::exists(status)) {
      return error_result(fmt::format("{} does not exist", shown));
    }
    if (!fs::is_directory(status)) {
      return error_result(fmt::format("{} is not a directory; use read_file to read it", shown));
    }

    Listing listing;
    list(dir.workspace, dir.absolute, std::min(levels, k_max_depth), listing);
    ToolResult result;
    for (const auto& line : listing.lines) {
      result.content += to_valid_utf8(line) + '\n';
    }
    if (listing.lines.empty()) {
      result.content = fmt::format("({} is empty)\n", shown);
    }
    if (listing.unreadable > 0) {
      result.content += fmt::format("[{} director{} could not be read]\n", listing.unreadable,
                                    listing.unreadable == 1 ? "y" : "ies");
    }
    if (listing.capped) {
      result.truncated = true;
      result.content += fmt::format("[stopped after {} entries; list a subdirectory or use a "
                                    "smaller depth]\n",
                                    k_max_entries);
    }
    if (levels > k_max_depth) {
      result.content += fmt::format("[depth is limited to {}]\n", k_max_depth);
    }
    result.content.pop_back();
    return result;
  }

  ToolSpec m_spec;
};

} // namespace

std::unique_ptr<Tool> make_list_dir_tool() {
  return std::make_unique<ListDirTool>();
}

} // namespace ralph::tools
