#include "ralph/verify/test_summary.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace ralph::verify {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAreArray;

// What a real runner printed (tests/verify/fixtures/test_runners/regenerate.sh made them).
std::string fixture(const std::string& name) {
  const std::string path =
      std::string(RALPH_SOURCE_DIR) + "/tests/verify/fixtures/test_runners/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> names(const std::string& format, std::vector<int> numbers) {
  std::vector<std::string> out;
  for (const int n : numbers) {
    out.push_back(fmt::format(fmt::runtime(format), n));
  }
  return out;
}

// One fixture and what the suite behind it was made to do (see regenerate.sh: FAIL, ERR, SKIP).
struct Expected {
  std::string file;
  std::string runner;
  int failed;
  std::optional<int> passed; // nullopt: the output does not say
  std::optional<int> total;
  std::vector<std::string> failing;
  std::vector<std::string> passing;
};

// A count the output does not give.
const std::optional<int> k_unknown;

const std::string k_py = "test_suite.py::Cases::test_{}";
const std::string k_unit = "test_suite.Cases.test_{}";
const std::string k_suite = "suite > case {}";
const std::string k_case = "case {}";

std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<Expected> expectations() {
  return {
      {"pytest_pass.txt", "pytest", 0, 6, 6, {}, {}},
      {"pytest_fail3.txt", "pytest", 3, 3, 6, names(k_py, {1, 2, 3}), {}},
      {"pytest_fail2.txt", "pytest", 2, 4, 6, names(k_py, {2, 3}), {}},
      {"pytest_fail1.txt", "pytest", 1, 5, 6, names(k_py, {3}), {}},
      {"pytest_quiet_fail2.txt", "pytest", 2, 4, 6, names(k_py, {2, 3}), {}},
      {"pytest_color_fail1.txt", "pytest", 1, 5, 6, names(k_py, {3}), {}},
      {"pytest_verbose_fail2.txt", "pytest", 2, 4, 6, names(k_py, {2, 3}),
       names(k_py, {1, 4, 5, 6})},
      {"pytest_verbose_regressed.txt", "pytest", 2, 4, 6, names(k_py, {1, 5}),
       names(k_py, {2, 3, 4, 6})},
      // An exception in a unittest-style test is a failure to pytest; one is skipped.
      {"pytest_mixed.txt", "pytest", 2, 3, 6, names(k_py, {1, 2}), {}},
      {"pytest_many.txt", "pytest", 4, 246, 250, names(k_py, {7, 77, 177, 200}), {}},
      {"unittest_pass.txt", "unittest", 0, 6, 6, {}, {}},
      {"unittest_fail2.txt", "unittest", 2, 4, 6, names(k_unit, {2, 3}), {}},
      {"unittest_verbose_fail2.txt", "unittest", 2, 4, 6, names(k_unit, {2, 3}),
       names(k_unit, {1, 4, 5, 6})},
      {"unittest_mixed.txt", "unittest", 2, 3, 6, names(k_unit, {1, 2}), {}},
      {"unittest_many.txt", "unittest", 4, 246, 250, names(k_unit, {7, 77, 177, 200}), {}},
      // Without -v go test names only failures: how many passed, and of how many, it does not say.
      {"go_pass.txt", "go test", 0, std::nullopt, std::nullopt, {}, {}},
      {"go_fail3.txt",
       "go test",
       3,
       std::nullopt,
       std::nullopt,
       {"example.com/suite/alpha.TestCase1", "example.com/suite/alpha.TestCase2",
        "example.com/suite/beta.TestCase4"},
       {}},
      {"go_fail1.txt",
       "go test",
       1,
       std::nullopt,
       std::nullopt,
       {"example.com/suite/beta.TestCase4"},
       {}},
      // Subtests count through their top-level test.
      {"go_verbose_fail2.txt",
       "go test",
       2,
       8,
       10,
       {"example.com/suite/alpha.TestCase2", "example.com/suite/beta.TestTable"},
       {"example.com/suite/alpha.TestCase1", "example.com/suite/alpha.TestCase3",
        "example.com/suite/alpha.TestCase4", "example.com/suite/alpha.TestTable",
        "example.com/suite/beta.TestCase1", "example.com/suite/beta.TestCase2",
        "example.com/suite/beta.TestCase3", "example.com/suite/beta.TestCase4"}},
      // A package that did not build counts as one failure, named for the package.
      {"go_build_failed.txt",
       "go test",
       2,
       std::nullopt,
       std::nullopt,
       {"example.com/suite/alpha.TestCase2", "example.com/suite/beta"},
       {}},
      // Unit tests, integration tests and doc tests each print a "test result" line.
      {"cargo_pass.txt", "cargo test", 0, 7, 8, {}, {}},
      {"cargo_pass_verbose.txt",
       "cargo test",
       0,
       7,
       8,
       {},
       joined(names("tests::case_{}", {1, 2, 3, 4, 5}), {"integration_100", "integration_101"})},
      {"cargo_fail3.txt",
       "cargo test",
       3,
       4,
       8,
       {"tests::case_1", "tests::case_2", "integration_100"},
       {"tests::case_3", "tests::case_4", "tests::case_5", "integration_101"}},
      // Without --no-fail-fast the integration tests do not run after the unit tests failed.
      {"cargo_fail2.txt", "cargo test", 2, 3, 6, names("tests::case_{}", {2, 3}),
       names("tests::case_{}", {1, 4, 5})},
      {"ctest_pass.txt", "ctest", 0, 5, 5, {}, names("t_{}", {1, 2, 3, 4, 5})},
      {"ctest_fail3.txt", "ctest", 3, 2, 5, names("t_{}", {1, 4, 5}), names("t_{}", {2, 3})},
      {"ctest_fail1_output_on_failure.txt", "ctest", 1, 4, 5, names("t_{}", {4}),
       names("t_{}", {1, 2, 3, 5})},
      {"jest_pass.txt", "jest", 0, 6, 6, {}, {}},
      {"jest_fail3.txt", "jest", 3, 3, 6, {"suite › case 1", "suite › case 2", "other 1"}, {}},
      {"jest_verbose_fail1.txt",
       "jest",
       1,
       5,
       6,
       {"suite › case 4"},
       {"suite › case 1", "suite › case 2", "suite › case 3", "suite › case 5", "other 1"}},
      {"vitest_pass.txt", "vitest", 0, 6, 6, {}, {}},
      {"vitest_fail3.txt",
       "vitest",
       3,
       3,
       6,
       {"test/other.test.js > other 1", "test/suite.test.js > suite > case 1",
        "test/suite.test.js > suite > case 2"},
       {}},
      {"vitest_verbose_fail1.txt",
       "vitest",
       1,
       5,
       6,
       {"test/suite.test.js > suite > case 4"},
       joined(names("test/suite.test.js > suite > case {}", {1, 2, 3, 5}),
              {"test/other.test.js > other 1"})},
      // node --test off a terminal writes TAP: tests nest under their suite, whose own result is
      // not a test; its closing "# tests 7" counts the skipped one too.
      {"node_pass.txt",
       "node --test",
       0,
       6,
       7,
       {},
       joined({"other 1"}, names(k_suite, {1, 2, 3, 4, 5}))},
      {"node_fail3.txt", "node --test", 3, 3, 7, joined({"other 1"}, names(k_suite, {1, 2})),
       names(k_suite, {3, 4, 5})},
      {"node_fail1.txt", "node --test", 1, 5, 7, names(k_suite, {4}),
       joined({"other 1"}, names(k_suite, {1, 2, 3, 5}))},
      // bats writes flat TAP, its plan the total.
      {"bats_pass.txt", "TAP", 0, 6, 7, {}, joined({"other 1"}, names(k_case, {1, 2, 3, 4, 5}))},
      {"bats_fail3.txt", "TAP", 3, 3, 7, joined({"other 1"}, names(k_case, {1, 2})),
       names(k_case, {3, 4, 5})},
      {"bats_fail1.txt", "TAP", 1, 5, 7, names(k_case, {4}),
       joined({"other 1"}, names(k_case, {1, 2, 3, 5}))},
      // prove says how many tests ran and which failed, by number, not how many were skipped.
      {"prove_pass.txt", "prove", 0, std::nullopt, 7, {}, {}},
      {"prove_fail3.txt",
       "prove",
       3,
       std::nullopt,
       7,
       {"t/other.t #1", "t/suite.t #1", "t/suite.t #2"},
       {}},
      // With -v it shows the TAP of each file; its own summary stands alone over them.
      {"prove_verbose_fail1.txt", "prove", 1, std::nullopt, 7, {"t/suite.t #4"}, {}},
      {"mocha_pass.txt",
       "mocha",
       0,
       6,
       7,
       {},
       joined({"other 1"}, names(k_suite, {1, 2, 3, 4, 5}))},
      {"mocha_fail3.txt", "mocha", 3, 3, 7, joined({"other 1"}, names(k_suite, {1, 2})),
       names(k_suite, {3, 4, 5})},
      {"mocha_fail1.txt", "mocha", 1, 5, 7, names(k_suite, {4}),
       joined({"other 1"}, names(k_suite, {1, 2, 3, 5}))},
      {"rspec_pass.txt", "rspec", 0, 6, 7, {}, {}},
      {"rspec_fail3.txt", "rspec", 3, 3, 7, {"other 1", "suite case 1", "suite case 2"}, {}},
      {"rspec_fail1.txt", "rspec", 1, 5, 7, {"suite case 4"}, {}},
  };
}

class RealRunnerOutput : public ::testing::TestWithParam<Expected> {};

TEST_P(RealRunnerOutput, GivesTheRunnersCountsAndTestNames) {
  const Expected& expected = GetParam();
  const auto summary = parse_test_summary(fixture(expected.file));
  ASSERT_TRUE(summary.has_value()) << expected.file;
  EXPECT_EQ(summary->runner, expected.runner);
  EXPECT_EQ(summary->failed, expected.failed);
  EXPECT_EQ(summary->passed, expected.passed);
  EXPECT_EQ(summary->total, expected.total);
  EXPECT_THAT(summary->failing, UnorderedElementsAreArray(expected.failing));
  EXPECT_THAT(summary->passing, UnorderedElementsAreArray(expected.passing));
}

TEST_P(RealRunnerOutput, FedByteByByteGivesTheSameSummary) {
  const std::string output = fixture(GetParam().file);
  TestSummaryParser parser;
  LineSplitter lines({&parser});
  for (const char c : output) {
    lines.feed(std::string_view(&c, 1));
  }
  lines.finish();
  EXPECT_EQ(parser.finish(), parse_test_summary(output));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RealRunnerOutput, ::testing::ValuesIn(expectations()),
                         [](const auto& fixture_info) {
                           const std::string& file = fixture_info.param.file;
                           return file.substr(0, file.find('.'));
                         });

TEST(TestSummary, SeveralRunnersAreAddedUp) {
  const auto summary = parse_test_summary(fixture("pytest_fail2.txt") + fixture("go_fail3.txt"));
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->runner, "pytest + go test");
  EXPECT_EQ(summary->failed, 5);
  // go test without -v does not say how many passed, so neither does the sum.
  EXPECT_EQ(summary->passed, k_unknown);
  EXPECT_EQ(summary->total, k_unknown);
  EXPECT_EQ(summary->failing.size(), 5u);

  const auto known = parse_test_summary(fixture("pytest_fail2.txt") + fixture("jest_fail3.txt"));
  ASSERT_TRUE(known.has_value());
  EXPECT_EQ(known->failed, 5);
  EXPECT_EQ(known->passed, 7);
  EXPECT_EQ(known->total, 12);
}

TEST(TestSummary, CtestStandsAloneOverTheProgramsItRan) {
  // With --output-on-failure ctest shows what its tests printed, summaries included.
  const auto summary =
      parse_test_summary(fixture("cargo_fail2.txt") + fixture("ctest_fail1_output_on_failure.txt"));
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->runner, "ctest");
  EXPECT_EQ(summary->failed, 1);
  EXPECT_THAT(summary->failing, ElementsAre("t_4"));
}

TEST(TestSummary, OutputWithoutARunnersSummaryGivesNone) {
  EXPECT_FALSE(parse_test_summary("").has_value());
  EXPECT_FALSE(parse_test_summary("make: *** [Makefile:3: check] Error 1\nFAIL\nok\n").has_value());
  // A verify command of the user's own that only says what is wrong.
  EXPECT_FALSE(parse_test_summary("FAIL: the README has no usage section\n").has_value());
}

TEST(TestSummary, TapIsReadOnlyWithAPlanOrVersionLine) {
  // "ok" and a number at the start of a line is not TAP by itself.
  EXPECT_FALSE(parse_test_summary("ok 200 files copied\nnot ok 3 times\n").has_value());
  // Nor is a plan without a result.
  EXPECT_FALSE(parse_test_summary("1..10\n").has_value());
  const auto plain = parse_test_summary("1..3\nok 1 first\nnot ok 2 second\nok 3 # SKIP later\n");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->runner, "TAP");
  EXPECT_EQ(plain->failed, 1);
  EXPECT_EQ(plain->passed, 1);
  EXPECT_EQ(plain->total, 3);
  EXPECT_THAT(plain->failing, ElementsAre("second"));
  // A failing TODO test is expected to fail.
  const auto todo = parse_test_summary("1..2\nnot ok 1 - later # TODO not yet\nok 2 - now\n");
  ASSERT_TRUE(todo.has_value());
  EXPECT_EQ(todo->failed, 0);
  EXPECT_EQ(todo->passed, 1);
}

TEST(TestSummary, NestedTapWithoutNodesSummaryHasNoTotal) {
  // The top-level plan counts the two groups, not the tests in them.
  const auto nested = parse_test_summary("TAP version 13\n# Subtest: a\n    ok 1 - x\n    not ok 2 "
                                         "- y\n    1..2\nnot ok 1 - a\nok 2 - b\n1..2\n");
  ASSERT_TRUE(nested.has_value());
  EXPECT_EQ(nested->failed, 1);
  EXPECT_EQ(nested->passed, 2);
  EXPECT_EQ(nested->total, k_unknown);
  EXPECT_THAT(nested->failing, ElementsAre("a > y"));
  EXPECT_THAT(nested->passing, ElementsAre("a > x", "b"));
}

TEST(TestSummary, LastLineWithoutNewlineCountsAndLongLinesAreCut) {
  // Cut, the long line no longer ends like a failure line: nothing of it is counted.
  std::string output = "FAILED " + std::string(100'000, 'x') + "::test_long\n";
  output += fixture("pytest_fail1.txt");
  while (!output.empty() && output.back() == '\n') {
    output.pop_back();
  }
  const auto summary = parse_test_summary(output);
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->failed, 1);
  EXPECT_THAT(summary->failing, ElementsAre("test_suite.py::Cases::test_3"));
}

TEST(TestSummary, DescribesTheCounts) {
  const auto summary = parse_test_summary(fixture("pytest_fail3.txt"));
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(describe_tests(*summary), "pytest: 3 failed, 3 passed, 6 total");
}

TEST(TestSummary, GoTestWithoutVerboseSaysOnlyHowManyFailed) {
  // `go test ./...` prints the failing tests and an "ok" line per passing package: how many
  // tests passed, and of how many, it never says.
  const auto summary = parse_test_summary(fixture("go_fail3.txt"));
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->failed, 3);
  EXPECT_EQ(summary->passed, k_unknown);
  EXPECT_EQ(summary->total, k_unknown);
  EXPECT_EQ(describe_tests(*summary), "go test: 3 failed");
}

} // namespace
} // namespace ralph::verify
