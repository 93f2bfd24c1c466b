#include "file_access.h"
#include "result_tool.h"
#include "workspace_path.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/tools/glob.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <optional>
#include <system_error>
#include <vector>

namespace ralph::tools {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t k_default_results = 100;
constexpr std::int64_t k_max_results = 1000;
constexpr std::uintmax_t k_max_file_bytes = 4 * 1024 * 1024; // larger files are skipped
constexpr std::size_t k_max_line_bytes = 300;                // longer matching lines are cut

struct Search {
  const Workspace& workspace;
  const RE2& regex;
  const Glob& glob;
  const CancelToken& cancel;
  std::size_t max_results;
  std::vector<std::string> matches;
  std::size_t files_searched = 0;
  std::size_t files_too_large = 0;
  bool capped = false;
};

void search_file(const fs::path& file, Search& search) {
  const std::string shown = search.workspace.relative(file);
  auto content = read_small_file(file, k_max_file_bytes, shown);
  if (!content || looks_binary(*content)) {
    return;
  }
  ++search.files_searched;
  std::string_view rest = *content;
  for (std::size_t number = 1; !rest.empty(); ++number) {
    const std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (!RE2::PartialMatch(line, search.regex)) {
      continue;
    }
    if (search.matches.size() >= search.max_results) {
      search.capped = true;
      return;
    }
    const std::string_view kept = utf8_prefix(line, k_max_line_bytes);
    search.matches.push_back(fmt::format("{}:{}: {}{}", shown, number, to_valid_utf8(kept),
                                         kept.size() < line.size() ? " [...]" : ""));
  }
}

// Depth-first in name order so results come out in a stable order. Symlinks are not followed.
void search_tree(const fs::path& dir, Search& search) {
  bool readable = true;
  const std::vector<fs::directory_entry> entries = sorted_entries(dir, readable);
  std::error_code ec;
  for (const auto& entry : entries) {
    if (search.capped || search.cancel.cancelled()) {
      return;
    }
    if (entry.is_symlink(ec)) {
      continue;
    }
    if (entry.is_directory(ec)) {
      search_tree(entry.path(), search);
      continue;
    }
    if (!entry.is_regular_file(ec) ||
        !search.glob.matches(fs::path(search.workspace.relative(entry.path())))) {
      continue;
    }
    if (entry.file_size(ec) > k_max_file_bytes) {
      ++search.files_too_large;
      continue;
    }
    search_file(entry.path(), search);
  }
}

class SearchFilesTool final : public ResultTool {
public:
  SearchFilesTool() {
    m_spec.name = "search_files";
    m_spec.description = fmt::format(
        "Search file contents in the workspace with a regular expression (RE2 syntax, like "
        "grep -E; case-insensitive with (?i)). Matches line by line and returns "
        "`path:line: text` for each matching line, paths relative to the workspace root. Skips "
        ".git, .ralph, symlinks, binary files and files over {}. At most {} results by default.",
        describe_size(k_max_file_bytes), k_default_results);
    m_spec.parameters = fmt::format(
        R"({{"type":"object","properties":{{)"
        R"("pattern":{{"type":"string","description":"RE2 regular expression, e.g. \"TODO|FIXME\" or \"fn\\s+main\"."}},)"
        R"("path":{{"type":"string","description":"Directory or file to search, relative to the workspace root. Default \".\"."}},)"
        R"("glob":{{"type":"string","description":"Only files whose name matches, e.g. \"*.cpp\" or \"*.{{h,cpp}}\"; with a slash it matches the path."}},)"
        R"("max_results":{{"type":"integer","minimum":1,"maximum":{},"description":"Default {}."}}}},)"
        R"("required":["pattern"]}})",
        k_max_results, k_default_results);
  }

  const ToolSpec& spec() const override { return m_spec; }
  bool read_only() const override { return true; }

private:
  Result<ToolResult> call(const Arguments& args, const ToolContext& context) override {
    TRY_ASSIGN(const std::string pattern, args.required_string("pattern"));
    TRY_ASSIGN(const std::optional<std::string> path, args.string("path"));
    TRY_ASSIGN(const std::optional<std::string> glob, args.string("glob"));
    TRY_ASSIGN(const std::optional<std::int64_t> max_results, args.integer("max_results"));
    const std::int64_t limit = max_results.value_or(k_default_results);
    if (limit < 1) {
      return error_result("invalid arguments: `max_results` must be at least 1");
    }
    RE2::Options options;
    options.set_log_errors(false);
    const RE2 regex(pattern, options);
    if (!regex.ok()) {
      return error_result(
          fmt::format("invalid regular expression `{}`: {} (RE2 syntax: no lookaround or "
                      "backreferences; escape literal characters such as \\( \\[ \\.)",
                      pattern, regex.error()));
    }
    const std::string shown = path.value_or(".");
    TRY_ASSIGN(const WorkspacePath target, resolve_in_workspace(context, shown, Access::read));
    std::error_code ec;
    const fs::file_status status = fs::status(target.absolute, ec);
    if (!fs::exists(status)) {
      return error_result(fmt::format("{} does not exist", shown));
    }
    if (!fs::is_directory(status) && !fs::is_regular_file(status)) {
      return error_result(fmt::format("{} is not a regular file or directory", shown));
    }

    const Glob file_glob(glob.value_or(""));
    Search search{target.workspace, regex, file_glob, context.cancel,
                  static_cast<std::size_t>(std::min(limit, k_max_results))};
    if (fs::is_directory(status)) {
      search_tree(target.absolute, search);
    } else if (fs::file_size(target.absolute, ec) > k_max_file_bytes) {
      ++search.files_too_large;
    } else {
      search_file(target.absolute, search);
    }
    if (context.cancel.cancelled()) {
      return error_result("search cancelled");
    }
    return describe(search, pattern, shown, limit > k_max_results);
  }

  static ToolResult describe(const Search& search, const std::string& pattern,
                             const std::string& shown, bool limit_lowered) {
    ToolResult result;
    for (const auto& match : search.matches) {
      result.content += match + '\n';
    }
    if (search.matches.empty()) {
      result.content = fmt::format("no matches for `{}` in {} ({} files searched)\n", pattern,
                                   shown, search.files_searched);
    }
    if (search.capped) {
      result.truncated = true;
      result.content += fmt::format(
          "[stopped at {} matches; narrow the pattern, path or glob{}]\n", search.matches.size(),
          limit_lowered || search.max_results == k_max_results
              ? ""
              : fmt::format(", or raise max_results (up to {})", k_max_results));
    }
    if (search.files_too_large > 0) {
      result.content += fmt::format("[skipped {} files over {}; search them with shell]\n",
                                    search.files_too_large, describe_size(k_max_file_bytes));
    }
    result.content.pop_back();
    return result;
  }

  ToolSpec m_spec;
};

} // namespace

std::unique_ptr<Tool> make_search_files_tool() {
  return std::make_unique<SearchFilesTool>();
}

} // namespace ralph::tools
