#pragma once

#include "test_name_list.h"
#include "title_path.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ralph::verify {

// What TAP output said about its tests (TapReader::counts).
struct TapCounts {
  bool node = false; // node --test's own "# tests N" summary was found
  int failed = 0;
  int passed = 0;
  std::optional<int> total; // nullopt: neither a plan nor node's summary says
};

// Reads the Test Anything Protocol as `node --test` (off a terminal), bats and `prove -v` write
// it: `ok N - name`, `not ok N - name`, a `# SKIP` or `# TODO` directive, the plan `1..N`, and
// node's nesting (`# Subtest: name` above results indented four spaces a level; a parent's own
// result comes after its children's and is not a test of its own) and closing `# tests N`,
// `# pass N`, `# fail N`. Only what the output says is counted: node's summary when there is one,
// else the results it lists; the total is node's count or a flat stream's plan. Not thread-safe.
class TapReader {
public:
  void on_line(std::string_view text);

  // Whether the output was TAP: it had a plan or a `TAP version` line, and a test's result.
  bool seen() const { return m_marked && m_last_indent.has_value(); }
  TapCounts counts() const;
  // Failing and passing tests, named by the `# Subtest:` path above them: "suite > case 1".
  const TestNameList& failing() const { return m_failing; }
  const TestNameList& passing() const { return m_passing; }

private:
  void result(std::size_t indent, bool ok, std::string_view rest);

  bool m_marked = false; // a plan or `TAP version` was seen
  bool m_nested = false; // a result was indented: the top-level plan counts parents, not tests
  std::optional<int> m_plan;
  int m_failed = 0;
  int m_passed = 0;
  std::optional<std::size_t> m_last_indent; // of the previous result
  TitlePath m_subtests;                     // the open `# Subtest:`s
  // node's summary: tests, pass, fail, cancelled; nullopt until its line is seen.
  std::optional<int> m_node_tests;
  std::optional<int> m_node_pass;
  std::optional<int> m_node_fail;
  std::optional<int> m_node_cancelled;
  TestNameList m_failing;
  TestNameList m_passing;
};

} // namespace ralph::verify
