#include "support/temp_dir.h"

#include "ralph/verify/junit_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>

namespace ralph::verify {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// A report a real runner wrote (tests/verify/fixtures/test_runners/regenerate.sh).
std::string report(const std::string& name) {
  std::ifstream in(std::string(RALPH_SOURCE_DIR) + "/tests/verify/fixtures/test_runners/" + name,
                   std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(JunitReport, PytestReportCountsFailuresAndSkipsByTestCase) {
  // FAIL=2 ERR=4 SKIP=5 of six tests.
  const auto summary = parse_junit_xml(report("junit_pytest_mixed.xml"));
  ASSERT_TRUE(summary.has_value()) << summary.error().message;
  EXPECT_EQ(summary->runner, "JUnit XML");
  EXPECT_EQ(summary->failed, 2);
  EXPECT_EQ(summary->passed, 3);
  EXPECT_EQ(summary->total, 6);
  EXPECT_THAT(summary->failing, ElementsAre("test_suite.Cases.test_2", "test_suite.Cases.test_4"));
  EXPECT_THAT(summary->passing, ElementsAre("test_suite.Cases.test_1", "test_suite.Cases.test_3",
                                            "test_suite.Cases.test_6"));
}

TEST(JunitReport, CtestReportNamesEachTestOnce) {
  const auto summary = parse_junit_xml(report("junit_ctest_fail3.xml"));
  ASSERT_TRUE(summary.has_value()) << summary.error().message;
  EXPECT_EQ(summary->failed, 3);
  EXPECT_EQ(summary->total, 5);
  EXPECT_THAT(summary->failing, ElementsAre("t_1", "t_4", "t_5"));
  EXPECT_THAT(summary->passing, ElementsAre("t_2", "t_3"));
}

TEST(JunitReport, VitestReportUnescapesNames) {
  const auto summary = parse_junit_xml(report("junit_vitest_fail3.xml"));
  ASSERT_TRUE(summary.has_value()) << summary.error().message;
  EXPECT_EQ(summary->failed, 3);
  EXPECT_EQ(summary->passed, 3);
  EXPECT_THAT(summary->failing, UnorderedElementsAre("test/other.test.js.other 1",
                                                     "test/suite.test.js.suite > case 1",
                                                     "test/suite.test.js.suite > case 2"));
}

TEST(JunitReport, BatsReportCountsEveryFile) {
  const auto summary = parse_junit_xml(report("junit_bats_fail3.xml"));
  ASSERT_TRUE(summary.has_value()) << summary.error().message;
  EXPECT_EQ(summary->failed, 3);
  EXPECT_EQ(summary->passed, 3);
  EXPECT_EQ(summary->total, 7);
  EXPECT_THAT(summary->failing,
              ElementsAre("./other.bats.other 1", "./suite.bats.case 1", "./suite.bats.case 2"));
}

TEST(JunitReport, TextThatIsNotAReportIsAnErrorSayingWhere) {
  const auto html = parse_junit_xml("<html><body>hi</body></html>");
  ASSERT_FALSE(html.has_value());
  EXPECT_THAT(html.error().message, HasSubstr("not a JUnit XML report"));

  const std::string whole = report("junit_ctest_fail3.xml");
  const auto cut = parse_junit_xml(whole.substr(0, whole.find("status=\"run\"") + 3));
  ASSERT_FALSE(cut.has_value());
  EXPECT_THAT(cut.error().message, HasSubstr("line 16"));
}

TEST(JunitReport, AReportCutShortIsAnErrorNotAnEmptyReport) {
  // A header and an unclosed <testsuites>: what a formatter still writing its file leaves.
  const auto header = parse_junit_xml("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
  ASSERT_FALSE(header.has_value());
  EXPECT_THAT(header.error().message, HasSubstr("ends before the element opened at line 2"));

  // Cut between two test cases, every tag whole.
  const std::string whole = report("junit_pytest_mixed.xml");
  const auto cut = parse_junit_xml(whole.substr(0, whole.find("<testcase", 200)));
  ASSERT_FALSE(cut.has_value());
  EXPECT_THAT(cut.error().message, HasSubstr("cut short"));

  // Empty suites that are closed are a report of no tests.
  const auto empty = parse_junit_xml("<testsuites><testsuite name=\"x\"></testsuite></testsuites>");
  ASSERT_TRUE(empty.has_value()) << empty.error().message;
  EXPECT_EQ(empty->total, 0);
  const auto self_closed = parse_junit_xml("<testsuite name=\"x\" tests=\"0\"/>");
  ASSERT_TRUE(self_closed.has_value()) << self_closed.error().message;
  EXPECT_EQ(self_closed->total, 0);
}

TEST(JunitReport, OnlyReportsWrittenSinceTheRunStartedAreRead) {
  const ralph::testing::TempDir workspace;
  const auto stale = workspace.write("build/old.xml", report("junit_ctest_fail3.xml"));
  const auto since = std::filesystem::file_time_type::clock::now();
  std::filesystem::last_write_time(stale, since - std::chrono::hours(1));

  auto none = read_junit_reports(workspace.path(), {"build/*.xml"}, since);
  ASSERT_TRUE(none.has_value()) << none.error().message;
  EXPECT_FALSE(none->has_value());

  // The kernel stamps files from a coarse clock that may lag clock::now() by a tick, so the
  // fresh reports get a time after `since` explicitly.
  for (const auto& fresh : {workspace.write("build/new.xml", report("junit_pytest_mixed.xml")),
                            workspace.write("build/vitest.xml", report("junit_vitest_fail3.xml")),
                            workspace.write("elsewhere.xml", report("junit_vitest_fail3.xml"))}) {
    std::filesystem::last_write_time(fresh, since + std::chrono::seconds(1));
  }
  auto both = read_junit_reports(workspace.path(), {"build/*.xml"}, since);
  ASSERT_TRUE(both.has_value()) << both.error().message;
  ASSERT_TRUE(both->has_value());
  EXPECT_EQ((*both)->failed, 5);
  EXPECT_EQ((*both)->total, 12);
}

TEST(JunitReport, AnUnreadableReportIsAnErrorNamingTheFile) {
  const ralph::testing::TempDir workspace;
  const auto since = std::filesystem::file_time_type::clock::now() - std::chrono::seconds(5);
  workspace.write("reports/broken.xml", "<testsuite><testcase name=\"a");
  const auto read = read_junit_reports(workspace.path(), {"reports/*.xml"}, since);
  ASSERT_FALSE(read.has_value());
  EXPECT_THAT(read.error().message, HasSubstr("reports/broken.xml"));
}

} // namespace
} // namespace ralph::verify
