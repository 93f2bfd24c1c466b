// The key table's rows for what checks an attempt: verify commands and programs, the judge, the
// evidence gate of verifier-first runs, and the checks of the answer's text.
#include "config_key_makers.h"

namespace ralph::config_detail {
namespace {

using F = FlagForm;
using S = std::string;
using L = std::vector<std::string>;
using Z = std::size_t;

// "agent" names the agent's own model; anything else a PROVIDER/MODEL (checked when it is used).
Key judge_model_key() {
  constexpr std::string_view k_agent = "agent";
  Key key = make_key("judge.model", ValueKind::string);
  key.set = [k_agent](Config& c, const Value& v) {
    const std::string& text = as_string(v);
    c.judge.on_agent_model = text == k_agent;
    c.judge.model = c.judge.on_agent_model ? std::string() : text;
  };
  key.get = [k_agent](const Config& c) -> std::optional<Value> {
    return c.judge.on_agent_model ? std::string(k_agent) : c.judge.model;
  };
  return key;
}

std::vector<Key> command_keys() {
  return {
      named(naming_list_key("verify.commands", [](Config& c) -> L& { return c.verify.commands; }),
            {.help = "shell commands that must exit 0 for an attempt to pass",
             .flags = {{.names = "--verify-cmd",
                        .form = F::list_item,
                        .value_name = "CMD",
                        .help = "a shell command that must exit 0 for an attempt to pass "
                                "(repeatable)"}},
             .goal_key = "verify"}),
      named(naming_list_key("verify.exec", [](Config& c) -> L& { return c.verify.exec; }),
            {.help = "programs that read the attempt as JSON and print a verdict",
             .flags = {{.names = "--verify-exec",
                        .form = F::list_item,
                        .value_name = "PROG",
                        .help = "a program that reads the attempt as JSON and prints a verdict "
                                "(repeatable)"}},
             .goal_key = "verify_exec"}),
      named(seconds_key("verify.command_timeout", 1, k_week,
                        [](Config& c) -> Duration& { return c.verify.command_timeout; }),
            {.help = "most time one verify command may run"}),
      named(seconds_key("verify.exec_timeout", 1, k_week,
                        [](Config& c) -> Duration& { return c.verify.exec_timeout; }),
            {.help = "most time one verify program may run"}),
      named(size_key("verify.excerpt_chars", 200, k_max_int,
                     [](Config& c) -> Z& { return c.verify.excerpt_chars; }),
            {.help = "how much of a failing verify command's output its verdict quotes"}),
      named(int_key<int>("verify.runs", 1, 100, [](Config& c) -> int& { return c.verify.runs; }),
            {.help = "run a failing verify command up to this many times (flaky tests)",
             .flags = {{.names = "--reruns",
                        .value_name = "N",
                        .help = "run a failing verify command up to N times"}}}),
      named(
          int_key<int>("verify.quorum", 1, 100, [](Config& c) -> int& { return c.verify.quorum; }),
          {.help = "a verify command run more than once (verify.runs) passes when this many of "
                   "its runs pass",
           .flags = {{.names = "--quorum",
                      .value_name = "K",
                      .help = "...and pass when K of the runs pass"}}}),
      named(enum_key("verify.command_policy", k_error_policy_names,
                     [](Config& c) -> ErrorPolicy& { return c.verify.command_policy; }),
            {.help = "what a verify command that gives no verdict (a timeout, a command that "
                     "cannot start) means: fail_closed (a failure) or fail_open (the answer is "
                     "delivered, the error recorded)"}),
      named(naming_list_key("verify.protect", [](Config& c) -> L& { return c.verify.protect; }),
            {.help = "files no attempt may change, as globs, e.g. 'tests/**'",
             .flags = {{.names = "--protect",
                        .form = F::list_item,
                        .value_name = "GLOB",
                        .help = "files no attempt may change, e.g. 'tests/**' (repeatable)"}},
             .goal_key = "protect"}),
      named(naming_list_key("verify.junit", [](Config& c) -> L& { return c.verify.junit; }),
            {.help = "JUnit XML reports the verify commands write, e.g. 'build/test-*.xml'",
             .flags = {{.names = "--junit", .form = F::list_item, .value_name = "GLOB"}}}),
  };
}

std::vector<Key> judge_keys() {
  return {
      named(judge_model_key(),
            {.help = "the LLM judge's PROVIDER/MODEL, or \"agent\" for the agent's own model; "
                     "empty: no judge (another model family judges better)",
             .flags = {{.names = "--judge",
                        .form = F::optional,
                        .value_name = "PROVIDER/MODEL",
                        .fixed = "agent",
                        .help = "an LLM judge on PROVIDER/MODEL (alone: the agent's model; "
                                "another family is better)"},
                       {.names = "--judge",
                        .value_name = "PROVIDER/MODEL",
                        .help = "the validator's PROVIDER/MODEL (default: the generator's; "
                                "another family is better)",
                        .commands = "qa, task"}},
             .goal_key = "judge"}),
      named(string_key("judge.base_url", [](Config& c) -> S& { return c.judge.base_url; }),
            {.help = "the judge's server URL; empty: the agent's, when the provider is the same",
             .flags = {{.names = "--judge-base-url",
                        .value_name = "URL",
                        .help = "server URL for the judge's model"}},
             .goal_key = "judge_base_url"}),
      named(with_unit(int_key<int>("judge.max_tokens", 16, 100000,
                                   [](Config& c) -> int& { return c.judge.max_tokens; }),
                      Unit::tokens),
            {.help = "output token cap of each judge call"}),
      named(seconds_key("judge.timeout", 1, 3600,
                        [](Config& c) -> Duration& { return c.judge.timeout; }),
            {.help = "most time one judge call may take"}),
      named(size_key("judge.context_chars", 2000, k_max_int,
                     [](Config& c) -> Z& { return c.judge.context_chars; }),
            {.help = "the size of what the judge reads: the request, rules, recent history and "
                     "the answer"}),
      named(size_key("judge.rules_chars", 0, k_max_int,
                     [](Config& c) -> Z& { return c.judge.rules_chars; }),
            {.help = "the cap of the user rules (judge.rules_files) the judge reads"}),
      named(
          naming_list_key("judge.rules_files", [](Config& c) -> L& { return c.judge.rules_files; }),
          {.help = "files of user rules in the workspace (AGENTS.md-style) the judge holds the "
                   "answer to"}),
      named(enum_key("judge.policy", k_error_policy_names,
                     [](Config& c) -> ErrorPolicy& { return c.judge.policy; }),
            {.help = "what a judge that gives no verdict (a timeout, a provider error, malformed "
                     "output) means: fail_open (the answer is delivered, the error recorded) or "
                     "fail_closed (a failure)"}),
      named(bool_key("judge.structured", [](Config& c) -> bool& { return c.judge.structured; }),
            {.help = "ask the judge for a JSON verdict checked against a schema (false: PASS or "
                     "FAIL [category]: feedback, as text)"}),
  };
}

std::vector<Key> evidence_and_checks_keys() {
  return {
      named(bool_key("evidence.enabled", [](Config& c) -> bool& { return c.evidence.enabled; }),
            {.help = "verifier-first: completion needs the marker AND a passing trusted check "
                     "after the last change",
             .flags = {{.names = "--verifier-first",
                        .form = F::fixed,
                        .fixed = "true",
                        .help = "completion needs the marker AND a passing trusted check after "
                                "the last change"}},
             .goal_key = "verifier_first"}),
      named(string_key("evidence.marker", [](Config& c) -> S& { return c.evidence.marker; }),
            {.help = "the completion marker, stripped from the answer the user sees",
             .flags = {{.names = "--marker",
                        .value_name = "TEXT",
                        .help = "the completion marker (default <promise>DONE</promise>)"}},
             .goal_key = "marker"}),
      named(list_key("evidence.tools", [](Config& c) -> L& { return c.evidence.tools; }),
            {.help = "the tools whose calls can be evidence"}),
      named(list_key("evidence.commands", [](Config& c) -> L& { return c.evidence.commands; }),
            {.help = "without a verify command, the command lines of those tools that count as a "
                     "check: fnmatch patterns (\"*\" alone: any command)"}),
      named(bool_key("evidence.require", [](Config& c) -> bool& { return c.evidence.require; }),
            {.help = "completion needs evidence (false: the marker alone completes)"}),
      named(string_key("evidence.instructions",
                       [](Config& c) -> S& { return c.evidence.instructions; }),
            {.help = "how to verify this goal, told to the agent"}),
      named(list_key("checks.must_match", [](Config& c) -> L& { return c.checks.must_match; }),
            {.help = "RE2 patterns the answer must match",
             .flags = {{.names = "--must-match",
                        .form = F::list_item,
                        .value_name = "REGEX",
                        .help = "the answer must match this RE2 pattern (repeatable)"}},
             .goal_key = "must_match"}),
      named(list_key("checks.must_not_match",
                     [](Config& c) -> L& { return c.checks.must_not_match; }),
            {.help = "RE2 patterns the answer must not match",
             .flags = {{.names = "--must-not-match",
                        .form = F::list_item,
                        .value_name = "REGEX",
                        .help = "the answer must not match this RE2 pattern (repeatable)"}},
             .goal_key = "must_not_match"}),
      named(size_key("checks.min_chars", 0, k_max_int,
                     [](Config& c) -> Z& { return c.checks.min_chars; }),
            {.help = "fewest characters of the answer (0: any)"}),
      named(size_key("checks.max_chars", 0, k_max_int,
                     [](Config& c) -> Z& { return c.checks.max_chars; }),
            {.help = "most characters of the answer (0: any)"}),
      named(bool_key("checks.json", [](Config& c) -> bool& { return c.checks.json; }),
            {.help = "the answer must be JSON"}),
      named(string_key("checks.json_schema", [](Config& c) -> S& { return c.checks.json_schema; }),
            {.help = "a JSON Schema file the answer must satisfy, relative to the workspace"}),
      named(size_key("checks.min_bullets", 0, 10000,
                     [](Config& c) -> Z& { return c.checks.min_bullets; }),
            {.help = "fewest bullet points in the answer (0: any)"}),
      named(size_key("checks.max_bullets", 0, 10000,
                     [](Config& c) -> Z& { return c.checks.max_bullets; }),
            {.help = "most bullet points in the answer (0: any)"}),
  };
}

} // namespace

std::vector<Key> verify_keys() {
  return joined({command_keys, judge_keys, evidence_and_checks_keys});
}

} // namespace ralph::config_detail
