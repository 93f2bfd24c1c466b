#include "file_access.h"
#include "result_tool.h"
#include "unique_fd.h"
#include "workspace_path.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/tools/builtin_tools.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace ralph::tools {
namespace {

// The most text one call returns; the model pages through larger files with offset and limit.
constexpr std::size_t k_max_bytes = 100 * 1024;

// The lines of a file from `first` on, at most `limit` of them and k_max_bytes in all, read in
// chunks so a huge file (or a huge single line) costs no more memory than the answer.
struct Excerpt {
  std::string text;
  std::int64_t first = 0;
  std::int64_t last = 0;  // 0 when no line was taken
  std::int64_t lines = 0; // lines seen in the whole file; exact only when `at_end`
  bool at_end = false;    // everything after `last` was read: nothing follows
  bool by_size = false;   // stopped because of k_max_bytes
  bool cut_line = false;  // line `last` alone exceeded k_max_bytes and was cut
};

class ExcerptBuilder {
public:
  ExcerptBuilder(std::int64_t first, std::int64_t limit) : m_limit(limit) {
    m_excerpt.first = first;
  }

  // Feeds the next bytes of the file; false once the excerpt is complete.
  bool feed(std::string_view bytes) {
    while (!bytes.empty()) {
      const std::int64_t number = m_excerpt.lines + 1; // the line these bytes belong to
      if (number - m_excerpt.first >= m_limit) {
        return stop();
      }
      const std::size_t newline = bytes.find('\n');
      const std::size_t length = newline == std::string_view::npos ? bytes.size() : newline + 1;
      const bool wanted = number >= m_excerpt.first;
      if (wanted) {
        // A few bytes past the cap let the cut land on a UTF-8 boundary.
        const std::size_t room = k_max_bytes + 4 - std::min(m_line.size(), k_max_bytes + 4);
        m_line.append(bytes.substr(0, std::min(length, room)));
        if (m_excerpt.text.size() + m_line.size() > k_max_bytes) {
          return stop_at_size(number);
        }
      }
      bytes.remove_prefix(length);
      m_in_line = newline == std::string_view::npos;
      if (!m_in_line) {
        end_line(wanted);
      }
    }
    return true;
  }

  Excerpt finish() && {
    if (!m_done && m_in_line) {
      end_line(m_excerpt.lines + 1 >= m_excerpt.first); // a last line without a newline
    }
    m_excerpt.at_end = !m_done;
    return std::move(m_excerpt);
  }

private:
  void end_line(bool wanted) {
    ++m_excerpt.lines;
    m_in_line = false;
    if (wanted) {
      m_excerpt.text += m_line;
      m_excerpt.last = m_excerpt.lines;
      m_line.clear();
    }
  }

  // Line `number` does not fit: stop before it, or cut it when it is the first line asked for.
  bool stop_at_size(std::int64_t number) {
    m_excerpt.by_size = true;
    if (m_excerpt.text.empty()) {
      m_excerpt.text = utf8_prefix(m_line, k_max_bytes);
      m_excerpt.cut_line = true;
      m_excerpt.last = number;
    }
    return stop();
  }

  bool stop() {
    m_done = true;
    return false;
  }

  std::int64_t m_limit;
  Excerpt m_excerpt;
  std::string m_line;
  bool m_in_line = false;
  bool m_done = false;
};

std::string describe(const Excerpt& excerpt, std::string_view shown) {
  std::string text = to_valid_utf8(excerpt.text);
  const bool whole_file = excerpt.first == 1 && excerpt.at_end;
  if (whole_file) {
    return text.empty() ? fmt::format("({} is empty)", shown) : text;
  }
  if (!text.empty() && text.back() != '\n') {
    text += '\n';
  }
  const std::string range = fmt::format("lines {}-{} of {}", excerpt.first, excerpt.last, shown);
  if (excerpt.cut_line) {
    return text + fmt::format("[line {} of {} is longer than {} and was cut; use shell (e.g. "
                              "`cut -c` or `fold`) to see the rest]",
                              excerpt.last, shown, describe_size(k_max_bytes));
  }
  if (excerpt.at_end) {
    return text + fmt::format("[{}; the file ends here]", range);
  }
  if (excerpt.by_size) {
    return text + fmt::format("[{}; output capped at {}; read more with offset={}]", range,
                              describe_size(k_max_bytes), excerpt.last + 1);
  }
  return text + fmt::format("[{}; the file continues at offset={}]", range, excerpt.last + 1);
}

class ReadFileTool final : public ResultTool {
public:
  ReadFileTool() {
    m_spec.name = "read_file";
    m_spec.description = fmt::format(
        "Read a text file in the workspace. Returns the file's text exactly as stored (no line "
        "numbers added), so it can be copied into edit_file. At most {} per call; a note at the "
        "end says which lines were shown and the offset to continue from. Refuses directories "
        "(use list_dir) and binary files.",
        describe_size(k_max_bytes));
    m_spec.parameters =
        R"({"type":"object","properties":{)"
        R"("path":{"type":"string","description":"File path, relative to the workspace root."},)"
        R"("offset":{"type":"integer","minimum":1,"description":"First line to read, 1-based. Default 1."},)"
        R"("limit":{"type":"integer","minimum":1,"description":"Most lines to read. Default: up to the size cap."}},)"
        R"("required":["path"]})";
  }

  const ToolSpec& spec() const override { return m_spec; }
  bool read_only() const override { return true; }

private:
  Result<ToolResult> call(const Arguments& args, const ToolContext& context) override {
    TRY_ASSIGN(const std::string path, args.required_string("path"));
    TRY_ASSIGN(const std::optional<std::int64_t> offset, args.integer("offset"));
    TRY_ASSIGN(const std::optional<std::int64_t> limit, args.integer("limit"));
    const std::int64_t first = offset.value_or(1);
    const std::int64_t count = limit.value_or(std::numeric_limits<std::int64_t>::max());
    if (first < 1 || count < 1) {
      return error_result("invalid arguments: `offset` and `limit` must be at least 1");
    }
    TRY_ASSIGN(const WorkspacePath file, resolve_in_workspace(context, path, Access::read));
    return read(file.absolute, path, first, count);
  }

  static ToolResult read(const std::filesystem::path& file, const std::string& shown,
                         std::int64_t first, std::int64_t count) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
    UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd.valid()) {
      if (errno == ENOENT) {
        return error_result(fmt::format("{} does not exist; use list_dir or search_files to find "
                                        "the right path",
                                        shown));
      }
      return error_result(fmt::format("cannot read {}: {}", shown, std::strerror(errno)));
    }
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) {
      return error_result(fmt::format("cannot read {}: {}", shown, std::strerror(errno)));
    }
    if (S_ISDIR(info.st_mode)) {
      return error_result(
          fmt::format("{} is a directory; use list_dir to see what it holds", shown));
    }
    if (!S_ISREG(info.st_mode)) {
      return error_result(fmt::format("{} is not a regular file", shown));
    }

    ExcerptBuilder builder(first, count);
    // Sized for the file (most are a few KB) and left uninitialised: zero-filling 64 KB took as
    // many instructions as the rest of a call on a 2 KB file. At least 4 KB, as some files
    // report size 0.
    const std::size_t size =
        std::clamp<std::size_t>(static_cast<std::size_t>(info.st_size) + 1, 4 * 1024, 64 * 1024);
    const std::unique_ptr<char[]> buffer(new char[size]);
    bool probed = false;
    while (true) {
      const ssize_t n = ::read(fd.get(), buffer.get(), size);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n < 0) {
        return error_result(fmt::format("cannot read {}: {}", shown, std::strerror(errno)));
      }
      const std::string_view chunk(buffer.get(), static_cast<std::size_t>(n));
      if (!probed && looks_binary(chunk)) {
        return error_result(fmt::format("{} looks like a binary file ({}, contains NUL bytes); "
                                        "use shell (e.g. `xxd | head`, `file`) to inspect it",
                                        shown,
                                        describe_size(static_cast<std::uint64_t>(info.st_size))));
      }
      probed = true;
      if (n == 0 || !builder.feed(chunk)) {
        break;
      }
    }
    const Excerpt excerpt = std::move(builder).finish();
    if (excerpt.last == 0 && first > 1) {
      return error_result(fmt::format("offset {} is past the end of {}, which has {} lines", first,
                                      shown, excerpt.lines));
    }
    ToolResult result;
    result.content = describe(excerpt, shown);
    result.truncated = !excerpt.at_end || excerpt.cut_line;
    return result;
  }

  ToolSpec m_spec;
};

} // namespace

std::unique_ptr<Tool> make_read_file_tool() {
  return std::make_unique<ReadFileTool>();
}

} // namespace ralph::tools
