#include "file_access.h"
#include "result_tool.h"
#include "workspace_path.h"

#include "ralph/core/try.h"
#include "ralph/tools/builtin_tools.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <vector>

namespace ralph::tools {
namespace {

// Larger files are edited with shell tools; an exact-match edit would mean a huge old_text.
constexpr std::size_t k_max_file_bytes = std::size_t{10} * 1024 * 1024;
// The whitespace-insensitive hint keeps an offset per byte; bound what it costs.
constexpr std::size_t k_max_hint_bytes = std::size_t{2} * 1024 * 1024;

std::vector<std::size_t> find_all(std::string_view text, std::string_view needle) {
  std::vector<std::size_t> positions;
  for (std::size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    positions.push_back(at);
  }
  return positions;
}

std::size_t line_of(std::string_view text, std::size_t offset) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

std::string replace_newlines(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t at = text.find(from); at != std::string_view::npos;
       at = text.find(from, start)) {
    out.append(text.substr(start, at - start)).append(to);
    start = at + from.size();
  }
  return out.append(text.substr(start));
}

// `text` with each run of whitespace turned into one space, plus where each kept byte came from.
struct Collapsed {
  std::string text;
  std::vector<std::size_t> origin;
};

Collapsed collapse_whitespace(std::string_view text) {
  Collapsed out;
  bool in_space = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (std::isspace(static_cast<unsigned char>(text[i])) != 0) {
      in_space = true;
      continue;
    }
    if (in_space && !out.text.empty()) {
      out.text += ' ';
      out.origin.push_back(i);
    }
    in_space = false;
    out.text += text[i];
    out.origin.push_back(i);
  }
  return out;
}

// Why old_text might not have matched, as a sentence for the model; empty when no idea.
std::string mismatch_hint(std::string_view content, std::string_view old_text) {
  const bool file_crlf = content.find("\r\n") != std::string_view::npos;
  const bool old_crlf = old_text.find("\r\n") != std::string_view::npos;
  if (file_crlf && !old_crlf && old_text.find('\n') != std::string_view::npos &&
      content.find(replace_newlines(old_text, "\n", "\r\n")) != std::string_view::npos) {
    return " It would match with CRLF line endings: the file uses \\r\\n, old_text uses \\n; "
           "write old_text and new_text with \\r\\n.";
  }
  if (old_crlf && !file_crlf &&
      content.find(replace_newlines(old_text, "\r\n", "\n")) != std::string_view::npos) {
    return " It would match with LF line endings: the file uses \\n, old_text uses \\r\\n.";
  }
  if (content.size() > k_max_hint_bytes) {
    return "";
  }
  const Collapsed file = collapse_whitespace(content);
  const Collapsed wanted = collapse_whitespace(old_text);
  if (wanted.text.empty()) {
    return "";
  }
  const std::size_t at = file.text.find(wanted.text);
  if (at == std::string::npos) {
    return " Read the file again and copy the text exactly.";
  }
  return fmt::format(" Text that differs only in whitespace (indentation, spaces or line breaks) "
                     "starts at line {}; read the file there and copy it exactly.",
                     line_of(content, file.origin[at]));
}

class EditFileTool final : public ResultTool {
public:
  EditFileTool() {
    m_spec.name = "edit_file";
    m_spec.description =
        "Replace exact text in an existing file of the workspace. old_text must match the file "
        "byte for byte (whitespace and line endings included) and, unless replace_all is set, "
        "occur exactly once: include a few surrounding lines to make it unique. On any error the "
        "file is left unchanged. The write is atomic. To create a file use write_file.";
    m_spec.parameters =
        R"({"type":"object","properties":{)"
        R"("path":{"type":"string","description":"File path, relative to the workspace root."},)"
        R"("old_text":{"type":"string","description":"The exact text to replace."},)"
        R"("new_text":{"type":"string","description":"The replacement (may be empty)."},)"
        R"("replace_all":{"type":"boolean","description":"Replace every occurrence. Default false."}},)"
        R"("required":["path","old_text","new_text"]})";
  }

  const ToolSpec& spec() const override { return m_spec; }

private:
  Result<ToolResult> call(const Arguments& args, const ToolContext& context) override {
    TRY_ASSIGN(const std::string path, args.required_string("path"));
    TRY_ASSIGN(const std::string old_text, args.required_string("old_text"));
    TRY_ASSIGN(const std::string new_text, args.required_string("new_text"));
    TRY_ASSIGN(const std::optional<bool> replace_all, args.boolean("replace_all"));
    if (old_text.empty()) {
      return error_result("invalid arguments: `old_text` is empty; give the exact text to "
                          "replace, or use write_file to create or overwrite a file");
    }
    if (old_text == new_text) {
      return error_result("old_text and new_text are identical; nothing to change");
    }
    TRY_ASSIGN(const WorkspacePath file, resolve_in_workspace(context, path, Access::write));
    std::error_code ec;
    if (!std::filesystem::exists(file.absolute, ec)) {
      return error_result(fmt::format("{} does not exist; use write_file to create it", path));
    }
    TRY_ASSIGN(const std::string content, read_small_file(file.absolute, k_max_file_bytes, path));

    const std::vector<std::size_t> positions = find_all(content, old_text);
    if (positions.empty()) {
      return error_result(fmt::format("old_text not found in {}; the file is unchanged.{}", path,
                                      mismatch_hint(content, old_text)));
    }
    if (positions.size() > 1 && !replace_all.value_or(false)) {
      return error_result(fmt::format("old_text occurs {} times in {} (lines {}); add surrounding "
                                      "context to make it unique or set replace_all; the file is "
                                      "unchanged",
                                      positions.size(), path, lines_list(content, positions)));
    }

    std::string updated;
    updated.reserve(content.size() + positions.size() * new_text.size());
    std::size_t start = 0;
    for (const std::size_t at : positions) {
      updated.append(content, start, at - start).append(new_text);
      start = at + old_text.size();
    }
    updated.append(content, start);
    TRY(write_file_atomically(file.absolute, updated, path));
    ToolResult result;
    result.wrote_files = true;
    result.content =
        positions.size() == 1
            ? fmt::format("replaced 1 occurrence in {} at line {}",
                          file.workspace.relative(file.absolute), line_of(content, positions[0]))
            : fmt::format("replaced {} occurrences in {}", positions.size(),
                          file.workspace.relative(file.absolute));
    return result;
  }

  static std::string lines_list(std::string_view content, const std::vector<std::size_t>& at) {
    std::string out;
    for (std::size_t i = 0; i < at.size() && i < 10; ++i) {
      out += (i == 0 ? "" : ", ") + std::to_string(line_of(content, at[i]));
    }
    return at.size() > 10 ? out + ", ..." : out;
  }

  ToolSpec m_spec;
};

} // namespace

std::unique_ptr<Tool> make_edit_file_tool() {
  return std::make_unique<EditFileTool>();
}

} // namespace ralph::tools
