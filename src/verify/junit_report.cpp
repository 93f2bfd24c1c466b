#include "ralph/verify/junit_report.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/tools/glob.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace ralph::verify {
namespace {

namespace fs = std::filesystem;

// A report larger than this is not a test report anyone wrote on purpose.
constexpr std::uintmax_t k_max_report_bytes = 64ULL * 1024 * 1024;

// One start or end tag: `<name a="1">`, `<name/>` or `</name>`.
struct Tag {
  std::string name;
  std::map<std::string, std::string> attributes;
  bool closing = false;      // </name>
  bool self_closing = false; // <name/>
};

// Attribute text with XML's entities and character references replaced.
std::string unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::size_t end = text[i] == '&' ? text.find(';', i) : std::string_view::npos;
    if (end == std::string_view::npos || end - i > 10) {
      out += text[i];
      continue;
    }
    const std::string_view entity = text.substr(i + 1, end - i - 1);
    if (entity == "lt") {
      out += '<';
    } else if (entity == "gt") {
      out += '>';
    } else if (entity == "amp") {
      out += '&';
    } else if (entity == "quot") {
      out += '"';
    } else if (entity == "apos") {
      out += '\'';
    } else if (entity.size() > 1 && entity[0] == '#') {
      const bool hex = entity[1] == 'x' || entity[1] == 'X';
      const unsigned long code =
          std::strtoul(std::string(entity.substr(hex ? 2 : 1)).c_str(), nullptr, hex ? 16 : 10);
      if (code < 0x110000) {
        append_utf8(out, static_cast<char32_t>(code));
      }
    } else {
      out += text.substr(i, end - i + 1);
    }
    i = end;
  }
  return out;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == ':' ||
         c == '.';
}

// Reads the tag whose '<' is at `at`; returns the position after its '>', or npos when the text
// ends inside it.
std::size_t read_tag(std::string_view xml, std::size_t at, Tag& tag) {
  std::size_t i = at + 1;
  tag.closing = i < xml.size() && xml[i] == '/';
  if (tag.closing) {
    ++i;
  }
  const std::size_t name_start = i;
  while (i < xml.size() && is_name_char(xml[i])) {
    ++i;
  }
  tag.name = std::string(xml.substr(name_start, i - name_start));
  while (i < xml.size()) {
    const char c = xml[i];
    if (c == '>') {
      return i + 1;
    }
    if (c == '/') {
      tag.self_closing = true;
      ++i;
      continue;
    }
    if (!is_name_char(c)) {
      ++i;
      continue;
    }
    const std::size_t key_start = i;
    while (i < xml.size() && is_name_char(xml[i])) {
      ++i;
    }
    const std::string key(xml.substr(key_start, i - key_start));
    while (i < xml.size() &&
           (xml[i] == ' ' || xml[i] == '\t' || xml[i] == '\n' || xml[i] == '\r')) {
      ++i;
    }
    if (i >= xml.size() || xml[i] != '=') {
      continue;
    }
    ++i;
    while (i < xml.size() && xml[i] != '"' && xml[i] != '\'') {
      ++i;
    }
    if (i >= xml.size()) {
      break;
    }
    const char quote = xml[i];
    const std::size_t value_end = xml.find(quote, i + 1);
    if (value_end == std::string_view::npos) {
      break;
    }
    tag.attributes[key] = unescape(xml.substr(i + 1, value_end - i - 1));
    i = value_end + 1;
  }
  return std::string_view::npos;
}

std::string line_of(std::string_view xml, std::size_t at) {
  return fmt::format("line {}", 1 + std::count(xml.begin(), xml.begin() + at, '\n'));
}

// Where the markup that is not a tag (comments, CDATA, declarations) ends, or npos.
std::size_t skip_special(std::string_view xml, std::size_t at) {
  const std::string_view rest = xml.substr(at);
  const auto past = [&](std::string_view end) {
    const std::size_t found = xml.find(end, at);
    return found == std::string_view::npos ? found : found + end.size();
  };
  if (rest.starts_with("<!--")) {
    return past("-->");
  }
  if (rest.starts_with("<![CDATA[")) {
    return past("]]>");
  }
  if (rest.starts_with("<?")) {
    return past("?>");
  }
  return past(">"); // <!DOCTYPE ...>
}

Result<std::string> read_report(const fs::path& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) {
    return fail(ErrorKind::io, fmt::format("{}: {}", path.string(), ec.message()));
  }
  if (size > k_max_report_bytes) {
    return fail(ErrorKind::io,
                fmt::format("{}: {} bytes is too large for a test report", path.string(), size));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    return fail(ErrorKind::io, fmt::format("{}: cannot be read", path.string()));
  }
  return text.str();
}

// A report's counts are always known: it lists every test case.
void add(TestSummary& sum, const TestSummary& more) {
  sum.failed += more.failed;
  sum.passed = sum.passed.value_or(0) + more.passed.value_or(0);
  sum.total = sum.total.value_or(0) + more.total.value_or(0);
  append_test_names(sum.failing, more.failing);
  append_test_names(sum.passing, more.passing);
}

} // namespace

Result<TestSummary> parse_junit_xml(std::string_view xml) {
  TestSummary summary;
  summary.runner = "JUnit XML";
  int passed = 0;
  int total = 0;
  bool suite_seen = false;
  // <testsuite>s and <testsuites> open at this point; a report that ends with one open was cut
  // short, or is still being written (bats' formatter may write after bats exits).
  std::vector<std::size_t> open_suites; // where each one starts
  std::optional<std::string> test;      // the open <testcase>'s name
  bool test_failed = false;
  bool test_skipped = false;
  const auto end_test = [&] {
    ++total;
    if (test_failed) {
      ++summary.failed;
      if (summary.failing.size() < k_max_test_names) {
        summary.failing.push_back(*test);
      }
    } else if (!test_skipped) {
      ++passed;
      if (summary.passing.size() < k_max_test_names) {
        summary.passing.push_back(*test);
      }
    }
    test.reset();
  };
  for (std::size_t at = xml.find('<'); at != std::string_view::npos; at = xml.find('<', at)) {
    if (at + 1 < xml.size() && (xml[at + 1] == '!' || xml[at + 1] == '?')) {
      at = skip_special(xml, at);
      if (at == std::string_view::npos) {
        return fail(ErrorKind::parse, "the report ends inside a comment or declaration");
      }
      continue;
    }
    Tag tag;
    const std::size_t next = read_tag(xml, at, tag);
    if (next == std::string_view::npos) {
      return fail(ErrorKind::parse,
                  fmt::format("the report ends inside the tag at {}", line_of(xml, at)));
    }
    if (tag.name == "testsuite" || tag.name == "testsuites") {
      suite_seen = true;
      if (tag.closing && !open_suites.empty()) {
        open_suites.pop_back();
      } else if (!tag.closing && !tag.self_closing) {
        open_suites.push_back(at);
      }
    } else if (tag.name == "testcase" && tag.closing) {
      if (test) {
        end_test();
      }
    } else if (tag.name == "testcase") {
      if (test) {
        end_test(); // a test case left open
      }
      const std::string name = tag.attributes["name"];
      const std::string classname = tag.attributes["classname"];
      test = classname.empty() || classname == name ? name : classname + "." + name;
      test_failed = false;
      test_skipped = false;
      if (tag.self_closing) {
        end_test();
      }
    } else if (test && !tag.closing && (tag.name == "failure" || tag.name == "error")) {
      test_failed = true;
    } else if (test && !tag.closing && tag.name == "skipped") {
      test_skipped = true;
    }
    at = next;
  }
  if (test) {
    end_test();
  }
  if (!suite_seen) {
    return fail(ErrorKind::parse, "no <testsuite> or <testsuites> element: not a JUnit XML report");
  }
  if (!open_suites.empty()) {
    return fail(ErrorKind::parse,
                fmt::format("the report ends before the element opened at {} is closed: it was "
                            "cut short or is still being written",
                            line_of(xml, open_suites.back())));
  }
  summary.passed = passed;
  summary.total = total;
  return summary;
}

Result<std::optional<TestSummary>> read_junit_reports(const fs::path& workspace,
                                                      const std::vector<std::string>& globs,
                                                      fs::file_time_type since) {
  std::vector<tools::Glob> matchers(globs.begin(), globs.end());
  std::vector<fs::path> reports;
  std::error_code ec;
  fs::recursive_directory_iterator it(workspace, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path relative = it->path().lexically_relative(workspace);
    const std::string first = relative.begin()->string();
    if (it->is_directory(ec) && (first == ".git" || first == ".ralph")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) &&
        std::any_of(matchers.begin(), matchers.end(),
                    [&](const tools::Glob& glob) { return glob.matches(relative); }) &&
        it->last_write_time(ec) >= since) {
      reports.push_back(it->path());
    }
  }
  if (ec) {
    return fail(ErrorKind::io, fmt::format("cannot search {} for JUnit reports: {}",
                                           workspace.string(), ec.message()));
  }
  if (reports.empty()) {
    return std::optional<TestSummary>();
  }
  std::sort(reports.begin(), reports.end());
  TestSummary sum;
  sum.runner = "JUnit XML";
  for (const fs::path& path : reports) {
    TRY_ASSIGN(const std::string text, read_report(path));
    auto report = parse_junit_xml(text);
    if (!report) {
      return fail(ErrorKind::parse,
                  fmt::format("{}: {}", path.lexically_relative(workspace).string(),
                              report.error().message));
    }
    add(sum, *report);
  }
  return std::optional<TestSummary>(std::move(sum));
}

} // namespace ralph::verify
