#include "ralph/core/text.h"
#include "ralph/verify/output_excerpt.h"
#include "ralph/verify/output_lines.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace ralph::verify {
namespace {

std::size_t count_of(const std::string& text, std::string_view needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

std::string numbered_lines(std::string_view format, int first, int last) {
  std::string out;
  for (int i = first; i < last; ++i) {
    out += fmt::format(fmt::runtime(format), i) + '\n';
  }
  return out;
}

std::string pytest_output() {
  return "============================= test session starts ==============================\n"
         "platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0\n"
         "collected 401 items\n\n" +
         numbered_lines("tests/test_math.py::test_case_{} PASSED", 0, 200) +
         "tests/test_math.py::test_divide FAILED\n" +
         numbered_lines("tests/test_math.py::test_more_{} PASSED", 0, 200) +
         "\n=================================== FAILURES ===================================\n"
         "________________________________ test_divide ___________________________________\n"
         "\n"
         "    def test_divide():\n"
         ">       assert divide(1, 2) == 0.5\n"
         "E       assert 0 == 0.5\n"
         "E        +  where 0 = divide(1, 2)\n"
         "\n"
         "tests/test_math.py:14: AssertionError\n"
         "=========================== short test summary info ============================\n"
         "FAILED tests/test_math.py::test_divide - assert 0 == 0.5\n"
         "======================== 1 failed, 400 passed in 0.35s =========================\n";
}

std::string gtest_output() {
  std::string out = "Test project /work/build\n"
                    "[==========] Running 301 tests from 1 test suite.\n";
  for (int i = 0; i < 150; ++i) {
    out += fmt::format("[ RUN      ] Parser.Case{0}\n[       OK ] Parser.Case{0} (0 ms)\n", i);
  }
  out += "[ RUN      ] Parser.RejectsGarbage\n"
         "/work/tests/parser_test.cpp:42: Failure\n"
         "Expected equality of these values:\n"
         "  parse(\"x\")\n"
         "    Which is: 1\n"
         "  0\n"
         "[  FAILED  ] Parser.RejectsGarbage (0 ms)\n";
  for (int i = 150; i < 300; ++i) {
    out += fmt::format("[ RUN      ] Parser.Case{0}\n[       OK ] Parser.Case{0} (0 ms)\n", i);
  }
  out += "[==========] 301 tests from 1 test suite ran. (3 ms total)\n"
         "[  PASSED  ] 300 tests.\n"
         "[  FAILED  ] 1 test, listed below:\n"
         "[  FAILED  ] Parser.RejectsGarbage\n"
         "\n"
         " 1 FAILED TEST\n"
         "\n"
         "0% tests passed, 1 tests failed out of 1\n"
         "\n"
         "The following tests FAILED:\n"
         "\t  1 - test_parser (Failed)\n"
         "Errors while running CTest\n";
  return out;
}

std::string cargo_output() {
  return "   Compiling calc v0.1.0 (/work/calc)\n"
         "    Finished test [unoptimized + debuginfo] target(s) in 0.52s\n"
         "     Running unittests src/lib.rs (target/debug/deps/calc-1a2b3c)\n\n"
         "running 120 tests\n" +
         numbered_lines("test tests::case_{} ... ok", 0, 60) +
         "test tests::it_divides ... FAILED\n" +
         numbered_lines("test tests::other_{} ... ok", 0, 59) +
         "\nfailures:\n\n"
         "---- tests::it_divides stdout ----\n"
         "thread 'tests::it_divides' panicked at src/lib.rs:20:9:\n"
         "assertion `left == right` failed\n"
         "  left: 0\n"
         " right: 1\n"
         "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
         "\n\n"
         "failures:\n"
         "    tests::it_divides\n\n"
         "test result: FAILED. 119 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; "
         "finished in 0.00s\n\n"
         "error: test failed, to rerun pass `--lib`\n";
}

std::string make_output() {
  return "make[1]: Entering directory '/work/proj'\n" +
         numbered_lines("gcc -Wall -Wextra -Werror -O2 -c -o build/unit{0}.o src/unit{0}.c", 0,
                        200) +
         "src/parser.c: In function 'parse':\n"
         "src/parser.c:17:5: error: implicit declaration of function 'foo' "
         "[-Werror=implicit-function-declaration]\n"
         "   17 |     foo(1);\n"
         "      |     ^~~\n"
         "cc1: all warnings being treated as errors\n"
         "make[1]: *** [Makefile:12: build/parser.o] Error 1\n" +
         numbered_lines("gcc -Wall -Wextra -Werror -O2 -c -o build/late{0}.o src/late{0}.c", 0,
                        100) +
         "make[1]: Leaving directory '/work/proj'\n"
         "make: *** [Makefile:5: all] Error 2\n";
}

std::string huge_log() {
  return numbered_lines("2026-01-01T00:00:00Z INFO step {} completed normally", 0, 50000) +
         "2026-01-01T00:00:01Z ERROR database connection refused (127.0.0.1:5432)\n" +
         numbered_lines("2026-01-01T00:00:02Z INFO retrying step {} later", 0, 50000) +
         "done: 1 step failed\n";
}

std::string last_line(const std::string& text) {
  return text.substr(text.rfind('\n') + 1);
}

TEST(OutputExcerpt, ReturnsShortOutputWhole) {
  EXPECT_EQ(excerpt_failures("all good\n3 passed\n", 4000), "all good\n3 passed\n");
  EXPECT_EQ(excerpt_failures("", 4000), "");
}

TEST(OutputExcerpt, FindsTheFailingPytestAmongManyPasses) {
  const std::string excerpt = excerpt_failures(pytest_output(), 1500);
  EXPECT_LE(excerpt.size(), 1500u);
  EXPECT_NE(excerpt.find("tests/test_math.py::test_divide FAILED"), std::string::npos);
  EXPECT_NE(excerpt.find("E       assert 0 == 0.5"), std::string::npos);
  EXPECT_NE(excerpt.find("tests/test_math.py:14: AssertionError"), std::string::npos);
  EXPECT_EQ(last_line(excerpt),
            "======================== 1 failed, 400 passed in 0.35s =========================");
  EXPECT_LT(count_of(excerpt, " PASSED"), 10u);
  EXPECT_NE(excerpt.find(" lines ...]"), std::string::npos);
}

TEST(OutputExcerpt, FindsTheGtestFailureWithItsValues) {
  const std::string excerpt = excerpt_failures(gtest_output(), 1200);
  EXPECT_LE(excerpt.size(), 1200u);
  EXPECT_NE(excerpt.find("/work/tests/parser_test.cpp:42: Failure\n"
                         "Expected equality of these values:\n"
                         "  parse(\"x\")\n"
                         "    Which is: 1\n"),
            std::string::npos);
  EXPECT_NE(excerpt.find("[  FAILED  ] Parser.RejectsGarbage (0 ms)"), std::string::npos);
  EXPECT_NE(excerpt.find(" 1 FAILED TEST"), std::string::npos);
  EXPECT_EQ(last_line(excerpt), "Errors while running CTest");
  EXPECT_LT(count_of(excerpt, "[       OK ]"), 10u);
}

TEST(OutputExcerpt, FindsTheCargoPanicAndTheResultLine) {
  const std::string excerpt = excerpt_failures(cargo_output(), 1200);
  EXPECT_LE(excerpt.size(), 1200u);
  EXPECT_NE(excerpt.find("test tests::it_divides ... FAILED"), std::string::npos);
  EXPECT_NE(excerpt.find("thread 'tests::it_divides' panicked at src/lib.rs:20:9:\n"
                         "assertion `left == right` failed\n"
                         "  left: 0\n"
                         " right: 1\n"),
            std::string::npos);
  EXPECT_NE(excerpt.find("test result: FAILED. 119 passed; 1 failed"), std::string::npos);
  EXPECT_EQ(last_line(excerpt), "error: test failed, to rerun pass `--lib`");
}

TEST(OutputExcerpt, FindsTheCompilerErrorInAMakeLog) {
  const std::string excerpt = excerpt_failures(make_output(), 1500);
  EXPECT_LE(excerpt.size(), 1500u);
  EXPECT_NE(excerpt.find("src/parser.c:17:5: error: implicit declaration of function 'foo'"),
            std::string::npos);
  EXPECT_NE(excerpt.find("   17 |     foo(1);\n      |     ^~~\n"), std::string::npos);
  EXPECT_NE(excerpt.find("make[1]: *** [Makefile:12: build/parser.o] Error 1"), std::string::npos);
  EXPECT_EQ(last_line(excerpt), "make: *** [Makefile:5: all] Error 2");
  // `-Werror` on every compile line is not an error.
  EXPECT_LT(count_of(excerpt, "gcc -Wall"), 20u);
}

TEST(OutputExcerpt, FindsOneFailureInTheMiddleOfAHugeLog) {
  const std::string excerpt = excerpt_failures(huge_log(), 4000);
  EXPECT_LE(excerpt.size(), 4000u);
  EXPECT_NE(excerpt.find("[... 49998 lines ...]\n"
                         "2026-01-01T00:00:00Z INFO step 49998 completed normally\n"
                         "2026-01-01T00:00:00Z INFO step 49999 completed normally\n"
                         "2026-01-01T00:00:01Z ERROR database connection refused"),
            std::string::npos);
  EXPECT_EQ(last_line(excerpt), "done: 1 step failed");
}

TEST(OutputExcerpt, MarksGapsAndKeepsOrder) {
  std::string output =
      numbered_lines("l{}", 0, 100) + "ERROR boom\n" + numbered_lines("l{}", 101, 200);
  const std::string excerpt = excerpt_failures(output, 300);
  EXPECT_EQ(excerpt.substr(0, 63),
            "[... 98 lines ...]\nl98\nl99\nERROR boom\nl101\nl102\nl103\nl104\n[... ");
  EXPECT_EQ(last_line(excerpt), "l199");
  EXPECT_LE(excerpt.size(), 300u);
}

TEST(OutputExcerpt, IsTheTailWhenNothingMatches) {
  const std::string output = numbered_lines("building step {}", 0, 1000);
  const std::string excerpt = excerpt_failures(output, 500);
  EXPECT_LE(excerpt.size(), 500u);
  EXPECT_GT(excerpt.size(), 400u); // the budget is used, not just 15 lines
  EXPECT_EQ(excerpt.substr(0, 5), "[... ");
  EXPECT_EQ(last_line(excerpt), "building step 999");
  EXPECT_EQ(excerpt.find("building step 0\n"), std::string::npos);
}

TEST(OutputExcerpt, KeepsTheTailAndTheFirstFailuresWhenManyFail) {
  std::string output;
  for (int i = 0; i < 500; ++i) {
    output += fmt::format("noise {}\nsrc/f{}.c:1:1: error: problem {}\n", i, i, i);
  }
  output += "summary: 500 errors\n";
  const std::string excerpt = excerpt_failures(output, 1000);
  EXPECT_LE(excerpt.size(), 1000u);
  EXPECT_NE(excerpt.find("error: problem 0\n"), std::string::npos);
  EXPECT_EQ(last_line(excerpt), "summary: 500 errors");
  EXPECT_EQ(excerpt.find("error: problem 250\n"), std::string::npos);
}

TEST(OutputExcerpt, ShortensVeryLongLines) {
  const std::string output = numbered_lines("line {}", 0, 50) + "ERROR " + std::string(5000, 'x') +
                             "\n" + numbered_lines("after {}", 0, 50);
  const std::string excerpt = excerpt_failures(output, 2000);
  EXPECT_LE(excerpt.size(), 2000u);
  EXPECT_NE(excerpt.find("ERROR xxxx"), std::string::npos);
  EXPECT_NE(excerpt.find("x [...]\n"), std::string::npos);
}

TEST(OutputExcerpt, RemovesColourCodesAndCarriageReturns) {
  const std::string excerpt =
      excerpt_failures("\x1b[31mFAILED\x1b[0m test_a\r\nprogress 10%\rprogress 100%\n", 4000);
  EXPECT_EQ(excerpt, "FAILED test_a\nprogress 10%\nprogress 100%\n");
}

TEST(OutputExcerpt, ReplacesInvalidUtf8) {
  EXPECT_EQ(excerpt_failures("bad \xff byte\n", 100), "bad \xEF\xBF\xBD byte\n");
}

TEST(OutputExcerpt, RespectsEveryBudgetAndStaysValidUtf8) {
  const std::vector<std::string> outputs = {
      pytest_output(),
      gtest_output(),
      cargo_output(),
      make_output(),
      numbered_lines("überprüfung {} läuft — ✓", 0, 300) + "✗ Prüfung fehlgeschlagen: «ä»\n" +
          numbered_lines("ñandú {} 🦤🦤🦤", 0, 300),
      "ERROR " + std::string(3000, 'y') + "\n" + std::string(2000, 'z'), // no final newline
      std::string(1000, '\n'),
      "単一の長い行" + std::string(600, 'a') + "エラー" + std::string(600, 'b'),
  };
  for (const std::string& output : outputs) {
    for (std::size_t budget = 0; budget < 6000; budget += budget < 700 ? 1 : 97) {
      const std::string excerpt = excerpt_failures(output, budget);
      ASSERT_LE(excerpt.size(), budget) << "budget " << budget;
      ASSERT_EQ(to_valid_utf8(excerpt), excerpt) << "budget " << budget;
      // Streamed in 3-byte pieces (cutting CR LF pairs, UTF-8 sequences and colour codes), the
      // excerpt is the same.
      FailureExcerpt streamed(budget);
      LineSplitter lines({&streamed});
      for (std::size_t at = 0; at < output.size(); at += 3) {
        lines.feed(std::string_view(output).substr(at, 3));
      }
      lines.finish();
      ASSERT_EQ(streamed.text(), excerpt) << "budget " << budget;
    }
  }
}

TEST(OutputExcerpt, AlwaysEndsWithTheLastLineWhenItFits) {
  const std::string output = gtest_output();
  for (std::size_t budget = 40; budget < 3000; budget += 13) {
    ASSERT_EQ(last_line(excerpt_failures(output, budget)), "Errors while running CTest")
        << "budget " << budget;
  }
}

TEST(FailureLines, RecogniseFailuresOfCommonTools) {
  for (const char* line : {
           "FAILED tests/test_a.py::test_b - assert 1 == 2",
           "[  FAILED  ] Parser.Rejects (0 ms)",
           "--- FAIL: TestParse (0.00s)",
           "not ok 3 - parses numbers",
           "ERROR: could not connect",
           "TypeError: unsupported operand",
           "src/a.c:1:2: error: expected ';'",
           "error[E0308]: mismatched types",
           "Traceback (most recent call last):",
           "AssertionError",
           ">       assert x == 1",
           "Expected: 3",
           "thread 'main' panicked at src/main.rs:2:5:",
           "  ✗ adds numbers",
           "  ✕ subtracts numbers",
           "make: *** [all] Error 2",
           "make[2]: *** [Makefile:3: x.o] Error 1",
           "/usr/bin/ld: main.o: undefined reference to `foo'",
           "Segmentation fault (core dumped)",
           "npm ERR! code ELIFECYCLE",
           "/work/t.cpp:42: Failure",
           "java.lang.IllegalStateException: boom",
       }) {
    EXPECT_TRUE(is_failure_line(line)) << line;
  }
}

TEST(FailureLines, IgnoreLinesThatOnlyMentionErrorsInPassing) {
  for (const char* line : {
           "Build succeeded: 0 warnings, 0 errors",
           "errors: 0",
           "gcc -Wall -Werror -c a.c",
           "[  PASSED  ] 12 tests.",
           "test_error_handling PASSED",
           "test tests::handles_failure ... ok",
           "100% tests passed, 0 tests failed out of 12",
           "ok 1 - parses numbers",
           "Compiling error_chain v0.12.4",
       }) {
    EXPECT_FALSE(is_failure_line(line)) << line;
  }
}

} // namespace
} // namespace ralph::verify
