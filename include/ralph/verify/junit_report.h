#pragma once

#include "ralph/core/error.h"
#include "ralph/verify/test_summary.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::verify {

// The tests of one JUnit XML report (`<testsuites>` / `<testsuite>` holding `<testcase>`s, as
// pytest --junitxml, ctest --output-junit, vitest, jest-junit, Maven Surefire and Gradle write
// them): a test case with a `<failure>` or `<error>` fails, one with `<skipped>` is counted but
// neither passes nor fails, any other passes. Names are `classname.name` (just `name` when they
// are the same). Only the test cases are counted, so nested suites count once. An ErrorKind::parse
// error, saying where, when the text is not such a report.
Result<TestSummary> parse_junit_xml(std::string_view xml);

// The JUnit reports under `workspace` that match one of `globs` (tools::Glob, workspace-relative;
// `.git` and `.ralph` are not searched) and were written at or after `since`, so a report left
// by an earlier run is not taken for this one. Their tests added up; nullopt when no such file
// exists. An ErrorKind::io or parse error names the file that could not be read.
Result<std::optional<TestSummary>> read_junit_reports(const std::filesystem::path& workspace,
                                                      const std::vector<std::string>& globs,
                                                      std::filesystem::file_time_type since);

} // namespace ralph::verify
