#include "support/temp_dir.h"

#include "ralph/verify/command_verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace ralph::verify {
namespace {

using ralph::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string k_fixtures =
    std::string(RALPH_SOURCE_DIR) + "/tests/verify/fixtures/test_runners/";

class CommandVerifierTests : public ::testing::Test {
protected:
  Verdict run(const std::string& command, const VerifySettings& settings = {}) {
    Attempt attempt;
    attempt.workspace = workspace.path();
    CommandVerifier verifier(command, settings, m_runner);
    return verifier.verify(attempt, {});
  }

  TempDir workspace;

private:
  tools::PosixProcessRunner m_runner;
};

TEST_F(CommandVerifierTests, TheRunnersCountsComeWithTheVerdictAndItsFeedback) {
  const Verdict verdict = run("cat '" + k_fixtures + "cargo_fail3.txt'; exit 101");
  EXPECT_EQ(verdict.result, Outcome::fail);
  ASSERT_TRUE(verdict.tests.has_value());
  EXPECT_EQ(verdict.tests->runner, "cargo test");
  EXPECT_EQ(verdict.tests->failed, 3);
  EXPECT_THAT(verdict.feedback,
              HasSubstr("failed with exit code 101 (cargo test: 3 failed, 4 passed, 8 total)."));
}

TEST_F(CommandVerifierTests, APassingRunCarriesItsCountsToo) {
  const Verdict verdict = run("cat '" + k_fixtures + "ctest_pass.txt'");
  EXPECT_EQ(verdict.result, Outcome::pass);
  ASSERT_TRUE(verdict.tests.has_value());
  EXPECT_EQ(verdict.tests->runner, "ctest");
  EXPECT_EQ(verdict.tests->passed, 5);
}

TEST_F(CommandVerifierTests, JunitReportsTheRunWroteReplaceTheOutputsCounts) {
  const Verdict verdict =
      run("mkdir -p reports && cp '" + k_fixtures + "junit_pytest_mixed.xml' reports/ && cat '" +
              k_fixtures + "pytest_fail1.txt'; exit 1",
          {.junit = {"reports/*.xml"}});
  ASSERT_TRUE(verdict.tests.has_value());
  EXPECT_EQ(verdict.tests->runner, "JUnit XML");
  EXPECT_EQ(verdict.tests->failed, 2);
  EXPECT_EQ(verdict.tests->total, 6);
}

TEST_F(CommandVerifierTests, WithoutAFreshReportTheOutputCounts) {
  const Verdict verdict =
      run("cat '" + k_fixtures + "pytest_fail1.txt'; exit 1", {.junit = {"reports/*.xml"}});
  ASSERT_TRUE(verdict.tests.has_value());
  EXPECT_EQ(verdict.tests->runner, "pytest");
  EXPECT_EQ(verdict.tests->failed, 1);
}

TEST_F(CommandVerifierTests, AReportThatCannotBeReadIsSaidInTheFeedback) {
  const Verdict verdict = run("mkdir -p reports && echo '<html>' > reports/x.xml; exit 1",
                              {.junit = {"reports/*.xml"}});
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_FALSE(verdict.tests.has_value());
  EXPECT_THAT(verdict.feedback,
              HasSubstr("The JUnit reports could not be read: reports/x.xml: no <testsuite>"));
}

TEST_F(CommandVerifierTests, AReportCutShortIsUnreadableAndTheExitCodeDecides) {
  // bats' JUnit formatter may still be writing its file when bats exits: the header and an
  // open <testsuites>, no test case yet. That is not a report of no tests.
  const Verdict verdict = run("mkdir -p reports && printf '<?xml version=\"1.0\" "
                              "encoding=\"UTF-8\"?>\\n<testsuites time=\"0.1\">\\n' > "
                              "reports/bats.xml; exit 1",
                              {.junit = {"reports/*.xml"}});
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_FALSE(verdict.tests.has_value());
  EXPECT_THAT(verdict.feedback, HasSubstr("The JUnit reports could not be read: reports/bats.xml: "
                                          "the report ends before the element opened at line 2"));
  EXPECT_THAT(verdict.feedback, Not(HasSubstr("0 total")));
}

TEST_F(CommandVerifierTests, FailingTestsOnlyAReportNamesAreNamedInTheFeedback) {
  // The command prints nothing; the report ctest wrote names t_1, t_4 and t_5.
  const Verdict verdict =
      run("mkdir -p reports && cp '" + k_fixtures + "junit_ctest_fail3.xml' reports/; exit 8",
          {.junit = {"reports/*.xml"}});
  EXPECT_EQ(verdict.result, Outcome::fail);
  EXPECT_THAT(verdict.feedback, HasSubstr("(JUnit XML: 3 failed, 2 passed, 5 total)"));
  EXPECT_THAT(verdict.feedback, HasSubstr("Failing tests in the JUnit reports: t_1, t_4, t_5"));
}

TEST_F(CommandVerifierTests, FailingTestsTheOutputShowsAreNotNamedAgain) {
  // The output names the report's failing tests already (pytest's FAILED lines).
  const Verdict verdict = run("mkdir -p reports && cp '" + k_fixtures +
                                  "junit_pytest_mixed.xml' reports/ && echo 'FAILED "
                                  "test_suite.Cases.test_2 and test_suite.Cases.test_4'; exit 1",
                              {.junit = {"reports/*.xml"}});
  EXPECT_THAT(verdict.feedback, Not(HasSubstr("Failing tests in the JUnit reports")));
}

} // namespace
} // namespace ralph::verify
