#include "ralph/verify/test_summary.h"

#include "tap_reader.h"
#include "test_name_list.h"
#include "title_path.h"

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <array>
#include <bitset>
#include <utility>

namespace ralph::verify {
namespace {

enum Runner : std::size_t {
  pytest,
  unittest,
  go_test,
  cargo,
  ctest,
  jest,
  vitest,
  tap,
  prove,
  mocha,
  rspec,
  k_runners
};
constexpr std::array<const char*, k_runners> k_runner_names = {
    "pytest", "unittest", "go test", "cargo test", "ctest", "jest",
    "vitest", "TAP",      "prove",   "mocha",      "rspec"};

// The kinds of line Patterns::lines tells apart, in the order they are added to it.
enum LineKind : unsigned {
  pytest_summary_line,
  pytest_failed_line,
  pytest_verbose_line,
  unittest_ran_line,
  unittest_result_line,
  unittest_failed_line,
  unittest_verbose_line,
  go_test_line,
  go_run_line,
  go_package_line,
  cargo_result_line,
  cargo_test_line,
  ctest_summary_line,
  ctest_test_line,
  ctest_failed_line,
  jest_summary_line,
  jest_failed_line,
  jest_file_line,
  vitest_summary_line,
  vitest_failed_line,
  vitest_passed_line,
  prove_file_line,
  prove_failed_line,
  prove_files_line,
  prove_result_line,
  mocha_passing_line,
  mocha_other_line,
  rspec_summary_line,
  rspec_failed_line,
  k_line_kinds
};
using LineKinds = std::bitset<k_line_kinds>;

// Compiled once, never changed after; RE2 matching is thread-safe. Each runner's lines, as its
// real output writes them (tests/verify/fixtures/test_runners holds samples).
struct Patterns {
  Patterns() {
    // One pass over a line finds which patterns can match it; most lines match none.
    for (const RE2* line :
         {&pytest_summary,  &pytest_failed,    &pytest_verbose, &unittest_ran,   &unittest_result,
          &unittest_failed, &unittest_verbose, &go_test,        &go_run,         &go_package,
          &cargo_result,    &cargo_test,       &ctest_summary,  &ctest_test,     &ctest_failed,
          &jest_summary,    &jest_failed,      &jest_file,      &vitest_summary, &vitest_failed,
          &vitest_passed,   &prove_file,       &prove_failed,   &prove_files,    &prove_result,
          &mocha_passing,   &mocha_other,      &rspec_summary,  &rspec_failed}) {
      lines.Add(line->pattern(), nullptr);
    }
    lines.Compile();
  }

  // Which kinds `text` may be; all of them when the set cannot tell (its DFA ran out of memory).
  LineKinds kinds(std::string_view text) const {
    std::vector<int> matched;
    RE2::Set::ErrorInfo error{};
    LineKinds out;
    if (!lines.Match(text, &matched, &error)) {
      return error.kind == RE2::Set::kNoError ? out : out.set();
    }
    for (const int kind : matched) {
      out.set(static_cast<std::size_t>(kind));
    }
    return out;
  }

  // "==== 2 failed, 5 passed in 0.12s ====", or "2 failed, 5 passed in 0.12s" with -q.
  RE2 pytest_summary{
      R"(=+ (.*\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed)\b.*) in [0-9.]+s\b.*=+)"
      R"(|((?:\d+ \w+, )*\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed)) in [0-9.]+s\b.*)"};
  RE2 pytest_failed{R"((?:FAILED|ERROR) (\S+(?:::|\.py)\S*)(?: - .*)?)"};
  RE2 pytest_verbose{R"((\S+::\S+) (PASSED|FAILED|ERROR)\b.*)"};
  RE2 count{R"((\d+) (\w+))"};
  RE2 unittest_ran{R"(Ran (\d+) tests? in [0-9.]+s)"};
  RE2 unittest_result{R"((OK|FAILED)(?: \((.*)\))?)"};
  RE2 unittest_item{R"((\w[\w ]*)=(\d+))"};
  RE2 unittest_failed{R"((?:FAIL|ERROR): (\w+) \(([\w.]+)\).*)"};
  RE2 unittest_verbose{R"((\w+) \(([\w.]+)\)(?: \.\.\. | .* \.\.\. )(ok|FAIL|ERROR)\b.*)"};
  RE2 go_test{R"(--- (FAIL|PASS|SKIP): (\S+) \(.*)"};
  RE2 go_run{R"(=== RUN\s+\S+)"}; // only -v writes it, and it lists every test
  RE2 go_package{R"((ok  |FAIL)\t(\S+)(?:[\t ].*)?)"};
  RE2 cargo_result{R"(test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;.*)"};
  RE2 cargo_test{R"(test (.+?) \.\.\. (ok|FAILED|ignored)\b.*)"};
  RE2 ctest_summary{R"(\d+% tests passed, (\d+) tests? failed out of (\d+))"};
  RE2 ctest_test{R"(\s*\d+/\d+ Test\s+#\d+: (.+?) \.*\s*(\*\*\*)?(\S.*?)\s+[0-9.]+ sec)"};
  RE2 ctest_failed{R"(\s+\d+ - (.+) \([^()]*\))"};
  RE2 jest_summary{R"(Tests:\s+(.*\d+ total))"};
  RE2 jest_failed{R"(\s*● (.+))"};
  RE2 jest_file{R"((PASS|FAIL) \S+.*)"};
  RE2 jest_tree_test{R"((\s+)(✓|✕|○|√|×) (.+?)(?: \(\d+(?:\.\d+)? m?s\))?)"};
  RE2 vitest_summary{R"(\s*Tests\s{2,}(.+) \((\d+)\).*)"};
  RE2 vitest_failed{R"( FAIL  (.+? > .+?))"};
  RE2 vitest_passed{R"( ✓ (.+? > .+?)(?: \d+ms)?)"};
  // prove's "Test Summary Report": "t/a.t (Wstat: 512 (exited 2) Tests: 4 Failed: 2)", then
  // "  Failed tests:  1, 3-4"; at the end "Files=2, Tests=5, ..." and "Result: FAIL".
  RE2 prove_file{R"((\S.*?) \(Wstat: (\d+).* Tests: (\d+) Failed: (\d+)\))"};
  RE2 prove_failed{R"(\s+Failed tests?:\s+([0-9, -]+))"};
  RE2 prove_item{R"((\d+)(?:-(\d+))?)"};
  RE2 prove_files{R"(Files=\d+, Tests=(\d+), .*)"};
  RE2 prove_result{R"(Result: (PASS|FAIL|NOTESTS))"};
  // mocha's spec reporter: "  3 passing (64ms)", then "  1 pending" and "  3 failing".
  RE2 mocha_passing{R"(\s+(\d+) passing \(\S+\))"};
  RE2 mocha_other{R"(\s+(\d+) (pending|failing))"};
  // and its tree above: suites, then "✔ title" for a passing test, "2) title" for a failing one.
  RE2 mocha_test{R"((\s+)(✔|√|\d+\)) (.+))"};
  // rspec: "7 examples, 3 failures, 1 pending", then "rspec ./spec/a_spec.rb:12 # suite case 1".
  RE2 rspec_summary{R"((\d+) examples?, (\d+) failures?(?:, (\d+) pending)?)"
                    R"((?:, (\d+) errors? occurred outside of examples)?)"};
  RE2 rspec_failed{R"(rspec (\S+\.rb\S*)(?: # (.+))?)"};
  RE2::Set lines{RE2::DefaultOptions, RE2::ANCHOR_BOTH};
};

const Patterns& patterns() {
  static const Patterns compiled;
  return compiled;
}

struct RunnerState {
  bool seen = false; // its summary was found
  int failed = 0;
  int passed = 0;
  int total = 0;
  // Whether `passed` and `total` are what the output said, or only what it happened to name.
  bool passed_known = true;
  bool total_known = true;
  TestNameList failing;
  TestNameList passing;
};

int to_int(re2::StringPiece digits) {
  int value = 0;
  for (const char c : digits) {
    if (value > 100'000'000) {
      return value;
    }
    value = value * 10 + (c - '0');
  }
  return value;
}

} // namespace

struct TestSummaryParser::State {
  std::array<RunnerState, k_runners> runners;
  std::vector<Runner> order; // runners in the order their summaries appeared
  // unittest: "Ran N tests" waits for its OK / FAILED line.
  std::optional<int> unittest_ran;
  // go test: tests of the package whose "ok"/"FAIL" line comes next.
  enum class GoResult { pass, fail, skip };
  std::vector<std::pair<std::string, GoResult>> go_pending;
  bool go_verbose = false; // -v lists passing tests too; without it only failures are named
  // jest --verbose: the describe blocks above the current test line, by indentation.
  bool jest_tree = false;
  TitlePath jest_blocks;
  TapReader tap_reader;
  // prove: the file of the "Test Summary Report" entry whose failed tests come next.
  std::string prove_file;
  // mocha: the suites above the current line of its tree, by indentation, until its summary.
  bool mocha_summary = false;
  TitlePath mocha_blocks;

  void saw(Runner runner) {
    if (!runners[runner].seen) {
      runners[runner].seen = true;
      order.push_back(runner);
    }
  }

  void add_counts(Runner runner, int failed, int passed, int total) {
    RunnerState& state = runners[runner];
    state.failed += failed;
    state.passed += passed;
    state.total += total;
    saw(runner);
  }

  void handle(std::string_view text);
  void counted_words(std::string_view items, Runner runner);
  void unittest_counts(std::string_view items, int ran);
  void go_package(std::string_view status, const std::string& package);
  void jest_tree_line(std::string_view text);
  void mocha_tree_line(std::string_view text);
  void prove_failed_tests(std::string_view list);
};

// "2 failed, 5 passed, 1 skipped in 0.1s" (pytest), "2 failed, 5 passed, 7 total" (jest),
// "2 failed | 5 passed" (vitest): a count before each word.
void TestSummaryParser::State::counted_words(std::string_view items, Runner runner) {
  const Patterns& p = patterns();
  int failed = 0;
  int passed = 0;
  int others = 0; // skipped, expected failures, to-dos
  std::optional<int> total;
  re2::StringPiece input(items);
  re2::StringPiece number;
  re2::StringPiece word;
  while (RE2::FindAndConsume(&input, p.count, &number, &word)) {
    const int n = to_int(number);
    if (word == "failed" || word == "error" || word == "errors") {
      failed += n;
    } else if (word == "passed" || word == "xpassed") {
      passed += n;
    } else if (word == "skipped" || word == "xfailed" || word == "todo" || word == "pending") {
      others += n;
    } else if (word == "total") {
      total = n;
    } // warnings, deselected, rerun: not tests that ran
  }
  add_counts(runner, failed, passed, total.value_or(failed + passed + others));
}

void TestSummaryParser::State::unittest_counts(std::string_view items, int ran) {
  const Patterns& p = patterns();
  int failed = 0;
  int not_passed = 0;
  re2::StringPiece input(items);
  re2::StringPiece key;
  re2::StringPiece number;
  while (RE2::FindAndConsume(&input, p.unittest_item, &key, &number)) {
    const int n = to_int(number);
    if (key == "failures" || key == "errors") {
      failed += n;
    }
    if (key != "unexpected successes") {
      not_passed += n;
    }
  }
  add_counts(unittest, failed, std::max(0, ran - not_passed), ran);
}

void TestSummaryParser::State::go_package(std::string_view status, const std::string& package) {
  RunnerState& state = runners[go_test];
  bool test_failed = false;
  for (auto& [name, result] : go_pending) {
    ++state.total;
    if (result == GoResult::skip) {
      continue;
    }
    const bool passed = result == GoResult::pass;
    test_failed = test_failed || !passed;
    (passed ? state.passing : state.failing).add(package + "." + name);
    ++(passed ? state.passed : state.failed);
  }
  go_pending.clear();
  if (status == "FAIL" && !test_failed) {
    // The package failed without a failing test: it did not build, or it crashed.
    state.failing.add(package);
    ++state.failed;
    ++state.total;
  }
  saw(go_test);
}

void TestSummaryParser::State::jest_tree_line(std::string_view text) {
  const Patterns& p = patterns();
  re2::StringPiece indent;
  re2::StringPiece mark;
  re2::StringPiece title;
  if (RE2::FullMatch(text, p.jest_tree_test, &indent, &mark, &title)) {
    std::string name = jest_blocks.above(indent.size(), " › ");
    name.append(title.data(), title.size());
    RunnerState& state = runners[jest];
    if (mark == "✓" || mark == "√") {
      state.passing.add(std::move(name));
    } else if (mark == "✕" || mark == "×") {
      state.failing.add(std::move(name));
    }
    return;
  }
  // The tree ends at a blank or unindented line, or where failure details ("● name") begin.
  const std::size_t first = text.find_first_not_of(' ');
  if (first == 0 || first == std::string_view::npos || text.substr(first).starts_with("●")) {
    jest_tree = false;
    return;
  }
  jest_blocks.enter(first, text.substr(first));
}

// A line of mocha's tree, before its summary. Which output is mocha's is known only at the
// summary, so every indented line is taken for a suite title and every "✔ title" or "2) title"
// under them for a test: the names count only if the summary comes.
void TestSummaryParser::State::mocha_tree_line(std::string_view text) {
  const std::size_t indent = text.find_first_not_of(' ');
  if (indent == 0 || indent == std::string_view::npos) {
    return;
  }
  const std::string_view body = text.substr(indent);
  const bool may_be_test =
      body.starts_with("✔") || body.starts_with("√") || (body[0] >= '0' && body[0] <= '9');
  re2::StringPiece spaces;
  re2::StringPiece mark;
  re2::StringPiece title;
  if (may_be_test && RE2::FullMatch(text, patterns().mocha_test, &spaces, &mark, &title)) {
    std::string name = mocha_blocks.above(indent, " > ");
    std::string_view test(title.data(), title.size());
    // A slow test's duration: "✔ case 1 (120ms)".
    if (const std::size_t open = test.rfind(" (");
        open != std::string_view::npos && test.ends_with("ms)")) {
      test = test.substr(0, open);
    }
    name += test;
    (mark[0] >= '0' && mark[0] <= '9' ? runners[mocha].failing : runners[mocha].passing)
        .add(std::move(name));
    return;
  }
  mocha_blocks.enter(indent, body);
}

// "1, 3-4": the test numbers of prove_file that failed, named "t/a.t #3".
void TestSummaryParser::State::prove_failed_tests(std::string_view list) {
  if (prove_file.empty()) {
    return;
  }
  re2::StringPiece input(list);
  re2::StringPiece first;
  re2::StringPiece last;
  while (RE2::FindAndConsume(&input, patterns().prove_item, &first, &last)) {
    const int from = to_int(first);
    const int to =
        last.empty() ? from : std::min(to_int(last), from + static_cast<int>(k_max_test_names));
    for (int n = from; n <= to; ++n) {
      runners[prove].failing.add(fmt::format("{} #{}", prove_file, n));
    }
  }
}

void TestSummaryParser::State::handle(std::string_view text) {
  const Patterns& p = patterns();
  std::string a;
  std::string b;
  std::string c;
  std::string d;
  if (jest_tree) {
    jest_tree_line(text);
    if (jest_tree) {
      return;
    }
  }
  if (text.empty()) {
    return;
  }
  tap_reader.on_line(text);
  if (tap_reader.seen()) {
    saw(tap);
  }
  if (!mocha_summary) {
    mocha_tree_line(text);
  }
  const LineKinds kinds = p.kinds(text);
  if (kinds.none()) {
    return;
  }
  if (kinds[pytest_summary_line] && RE2::FullMatch(text, p.pytest_summary, &a, &b)) {
    counted_words(a.empty() ? b : a, pytest);
  } else if (kinds[pytest_failed_line] && RE2::FullMatch(text, p.pytest_failed, &a)) {
    runners[pytest].failing.add(a);
  } else if (kinds[pytest_verbose_line] && RE2::FullMatch(text, p.pytest_verbose, &a, &b)) {
    (b == "PASSED" ? runners[pytest].passing : runners[pytest].failing).add(a);
  } else if (kinds[unittest_ran_line] && RE2::FullMatch(text, p.unittest_ran, &a)) {
    unittest_ran = to_int(a);
  } else if (unittest_ran && kinds[unittest_result_line] &&
             RE2::FullMatch(text, p.unittest_result, &a, &b)) {
    unittest_counts(b, *unittest_ran);
    unittest_ran.reset();
  } else if (kinds[unittest_failed_line] && RE2::FullMatch(text, p.unittest_failed, &a, &b)) {
    // Python 3.11 writes "test_x (mod.Class.test_x)", older ones "test_x (mod.Class)".
    runners[unittest].failing.add(b.ends_with("." + a) ? b : b + "." + a);
  } else if (kinds[unittest_verbose_line] && RE2::FullMatch(text, p.unittest_verbose, &a, &b, &c)) {
    const std::string name = b.ends_with("." + a) ? b : b + "." + a;
    (c == "ok" ? runners[unittest].passing : runners[unittest].failing).add(name);
  } else if (kinds[go_test_line] && RE2::FullMatch(text, p.go_test, &a, &b)) {
    go_pending.emplace_back(b, a == "PASS"   ? GoResult::pass
                               : a == "SKIP" ? GoResult::skip
                                             : GoResult::fail);
  } else if (kinds[go_run_line] && RE2::FullMatch(text, p.go_run)) {
    go_verbose = true;
  } else if (kinds[go_package_line] && RE2::FullMatch(text, p.go_package, &a, &b)) {
    go_package(a == "FAIL" ? "FAIL" : "ok", b);
  } else if (kinds[cargo_result_line] && RE2::FullMatch(text, p.cargo_result, &a, &b, &c)) {
    add_counts(cargo, to_int(b), to_int(a), to_int(a) + to_int(b) + to_int(c));
  } else if (kinds[cargo_test_line] && RE2::FullMatch(text, p.cargo_test, &a, &b)) {
    if (b != "ignored") {
      (b == "ok" ? runners[cargo].passing : runners[cargo].failing).add(a);
    }
  } else if (kinds[ctest_summary_line] && RE2::FullMatch(text, p.ctest_summary, &a, &b)) {
    add_counts(ctest, to_int(a), to_int(b) - to_int(a), to_int(b));
  } else if (re2::StringPiece stars;
             kinds[ctest_test_line] && RE2::FullMatch(text, p.ctest_test, &a, &stars, &b)) {
    (b == "Passed" ? runners[ctest].passing : runners[ctest].failing).add(a);
  } else if (kinds[ctest_failed_line] && RE2::FullMatch(text, p.ctest_failed, &a)) {
    runners[ctest].failing.add(a);
  } else if (kinds[jest_summary_line] && RE2::FullMatch(text, p.jest_summary, &a)) {
    counted_words(a, jest);
  } else if (kinds[jest_failed_line] && RE2::FullMatch(text, p.jest_failed, &a)) {
    if (a != "Test suite failed to run") {
      runners[jest].failing.add(a);
    }
  } else if (kinds[jest_file_line] && RE2::FullMatch(text, p.jest_file)) {
    jest_tree = true;
    jest_blocks.clear();
  } else if (kinds[vitest_summary_line] && RE2::FullMatch(text, p.vitest_summary, &a, &b)) {
    counted_words(a + ", " + b + " total", vitest);
  } else if (kinds[vitest_failed_line] && RE2::FullMatch(text, p.vitest_failed, &a)) {
    runners[vitest].failing.add(a);
  } else if (kinds[vitest_passed_line] && RE2::FullMatch(text, p.vitest_passed, &a)) {
    runners[vitest].passing.add(a);
  } else if (kinds[prove_file_line] && RE2::FullMatch(text, p.prove_file, &a, &b, &c, &d)) {
    prove_file.clear();
    if (to_int(d) > 0) {
      add_counts(prove, to_int(d), 0, 0);
      prove_file = a;
    } else if (b != "0") {
      // It failed without a failing test: it exited non-zero, or died, or its plan was wrong.
      add_counts(prove, 1, 0, 0);
      runners[prove].failing.add(a);
    }
  } else if (kinds[prove_failed_line] && RE2::FullMatch(text, p.prove_failed, &a)) {
    prove_failed_tests(a);
  } else if (kinds[prove_files_line] && RE2::FullMatch(text, p.prove_files, &a)) {
    add_counts(prove, 0, 0, to_int(a));
    prove_file.clear();
  } else if (kinds[prove_result_line] && RE2::FullMatch(text, p.prove_result)) {
    saw(prove);
  } else if (kinds[mocha_passing_line] && RE2::FullMatch(text, p.mocha_passing, &a)) {
    mocha_summary = true;
    mocha_blocks.clear();
    add_counts(mocha, 0, to_int(a), to_int(a));
  } else if (mocha_summary && kinds[mocha_other_line] &&
             RE2::FullMatch(text, p.mocha_other, &a, &b)) {
    add_counts(mocha, b == "failing" ? to_int(a) : 0, 0, to_int(a));
  } else if (kinds[rspec_summary_line] && RE2::FullMatch(text, p.rspec_summary, &a, &b, &c, &d)) {
    const int examples = to_int(a);
    const int failures = to_int(b);
    add_counts(rspec, failures + to_int(d), std::max(0, examples - failures - to_int(c)), examples);
  } else if (kinds[rspec_failed_line] && RE2::FullMatch(text, p.rspec_failed, &a, &b)) {
    runners[rspec].failing.add(b.empty() ? a : b);
  }
}

TestSummaryParser::TestSummaryParser() : m_state(std::make_unique<State>()) {}
TestSummaryParser::~TestSummaryParser() = default;

void TestSummaryParser::on_line(std::size_t /*number*/, std::string_view line) {
  m_state->handle(line);
}

std::optional<TestSummary> TestSummaryParser::finish() {
  State& state = *m_state;
  std::vector<Runner> used = state.order;
  // ctest and prove count the programs they ran, whose output they may show (ctest
  // --output-on-failure, prove -v): their summary stands alone.
  if (state.runners[ctest].seen) {
    used = {ctest};
  } else if (state.runners[prove].seen) {
    used = {prove};
  }
  if (used.empty()) {
    return std::nullopt;
  }
  if (!state.go_verbose) {
    state.runners[go_test].passed_known = false;
    state.runners[go_test].total_known = false;
  }
  // prove's summary says how many tests ran and failed, not how many of the rest were skipped.
  state.runners[prove].passed_known = false;
  const TapCounts tap_counts = state.tap_reader.counts();
  RunnerState& tap_state = state.runners[tap];
  tap_state.failed = tap_counts.failed;
  tap_state.passed = tap_counts.passed;
  tap_state.total = tap_counts.total.value_or(0);
  tap_state.total_known = tap_counts.total.has_value();
  tap_state.failing = state.tap_reader.failing();
  tap_state.passing = state.tap_reader.passing();
  TestSummary summary;
  summary.passed = 0;
  summary.total = 0;
  for (const Runner runner : used) {
    RunnerState& r = state.runners[runner];
    const char* name = runner == tap && tap_counts.node ? "node --test" : k_runner_names[runner];
    summary.runner += (summary.runner.empty() ? "" : " + ") + std::string(name);
    summary.failed += r.failed;
    // A sum with one unknown part is unknown.
    summary.passed =
        summary.passed && r.passed_known ? *summary.passed + r.passed : std::optional<int>();
    summary.total = summary.total && r.total_known
                        ? *summary.total + std::max(r.total, r.failed + r.passed)
                        : std::optional<int>();
    append_test_names(summary.failing, r.failing.names());
    append_test_names(summary.passing, r.passing.names());
  }
  return summary;
}

std::optional<TestSummary> parse_test_summary(std::string_view output) {
  TestSummaryParser parser;
  LineSplitter lines({&parser});
  lines.feed(output);
  lines.finish();
  return parser.finish();
}

void append_test_names(std::vector<std::string>& names, const std::vector<std::string>& more) {
  const std::size_t room = k_max_test_names - std::min(names.size(), k_max_test_names);
  names.insert(names.end(), more.begin(), more.begin() + std::min(room, more.size()));
}

std::string describe_tests(const TestSummary& summary) {
  std::string text = fmt::format("{}: {} failed", summary.runner, summary.failed);
  if (summary.passed) {
    text += fmt::format(", {} passed", *summary.passed);
  }
  if (summary.total) {
    text += fmt::format(", {} total", *summary.total);
  }
  return text;
}

} // namespace ralph::verify
