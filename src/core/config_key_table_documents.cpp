// The key table's rows for documents (`ralph qa`, `ralph task`): what a grounded answer must
// look like, the sandbox the document is explored in, the memory file of task mode, and the
// document a session records.
#include "config_key_makers.h"

namespace ralph::config_detail {
namespace {

using S = std::string;
using Z = std::size_t;

std::vector<Key> qa_keys() {
  return {
      named(size_key("qa.min_bullets", 1, 1000, [](Config& c) -> Z& { return c.qa.min_bullets; }),
            {.help = "fewest bullets of a `ralph qa` answer"}),
      named(size_key("qa.max_bullets", 1, 1000, [](Config& c) -> Z& { return c.qa.max_bullets; }),
            {.help = "most bullets of a `ralph qa` answer"}),
      named(size_key("qa.min_quotes", 0, 1000, [](Config& c) -> Z& { return c.qa.min_quotes; }),
            {.help = "fewest evidence quotes from the document"}),
      named(size_key("qa.max_quotes", 1, 1000, [](Config& c) -> Z& { return c.qa.max_quotes; }),
            {.help = "most evidence quotes from the document"}),
      named(size_key("qa.max_quote_chars", 10, 100000,
                     [](Config& c) -> Z& { return c.qa.max_quote_chars; }),
            {.help = "the longest quote, in characters"}),
      named(size_key("qa.min_quote_words", 1, 1000,
                     [](Config& c) -> Z& { return c.qa.min_quote_words; }),
            {.help = "the fewest words of a quote (a quote must say something)"}),
      named(size_key("qa.min_quote_chars", 1, 100000,
                     [](Config& c) -> Z& { return c.qa.min_quote_chars; }),
            {.help = "the shortest quote, in characters"}),
      named(enum_key("qa.match_level", k_match_level_names,
                     [](Config& c) -> MatchLevel& { return c.qa.match_level; }),
            {.help = "the loosest verbatim match of a quote accepted: exact, whitespace, "
                     "typographic, casefold",
             .flags = {{.names = "--match-level",
                        .value_name = "LEVEL",
                        .help = "loosest verbatim match accepted: exact, whitespace (default), "
                                "typographic, casefold",
                        .commands = "qa, task"}}}),
      named(
          size_key("qa.window_chars", 0, 100000, [](Config& c) -> Z& { return c.qa.window_chars; }),
          {.help = "the document around each quote the judge sees, on each side"}),
  };
}

std::vector<Key> rlm_keys() {
  return {
      named(int_key<int>("rlm.max_steps", 1, 100000,
                         [](Config& c) -> int& { return c.rlm.max_steps; }),
            {.help = "most model calls in one attempt's exploration of the document",
             .flags = {{.names = "--max-steps",
                        .value_name = "N",
                        .help = "most model calls in one attempt's exploration (default 80)",
                        .commands = "qa, task"}}}),
      named(int_key<int>("rlm.max_sub_queries", 0, 100000,
                         [](Config& c) -> int& { return c.rlm.max_sub_queries; }),
            {.help = "most llm_query calls in one attempt",
             .flags = {{.names = "--max-sub-queries",
                        .value_name = "N",
                        .help = "most llm_query calls in one attempt (default 60)",
                        .commands = "qa, task"}}}),
      named(int_key<int>("rlm.concurrency", 1, 64,
                         [](Config& c) -> int& { return c.rlm.concurrency; }),
            {.help = "batched llm_query calls in flight at once"}),
      named(mebibytes_key("rlm.memory_mb", 16, 65536,
                          [](Config& c) -> Z& { return c.rlm.memory_bytes; }),
            {.help = "the heap of the Lua sandbox, in MiB"}),
      named(seconds_key("rlm.time_limit", 1, 86400,
                        [](Config& c) -> Duration& { return c.rlm.time_limit; }),
            {.help = "most time one execution of the model's code may run"}),
      named(size_key("rlm.output_chars", 100, k_max_int,
                     [](Config& c) -> Z& { return c.rlm.output_chars; }),
            {.help = "the output of one execution shown to the model"}),
      named(string_key("rlm.sub_model", [](Config& c) -> S& { return c.rlm.sub_model; }),
            {.help = "the PROVIDER/MODEL llm_query calls use; empty: the agent's",
             .flags = {{.names = "--sub-model",
                        .value_name = "PROVIDER/MODEL",
                        .help = "the model llm_query calls use (default: the generator's)",
                        .commands = "qa, task"}}}),
      named(with_unit(int_key<int>("rlm.sub_max_tokens", 16, 100000,
                                   [](Config& c) -> int& { return c.rlm.sub_max_tokens; }),
                      Unit::tokens),
            {.help = "output token cap of each llm_query call"}),
  };
}

std::vector<Key> task_and_document_keys() {
  return {
      named(string_key("task.mem_file", [](Config& c) -> S& { return c.task.mem_file; }),
            {.help = "the memory file findings are appended to (relative to the workspace); "
                     "empty: none",
             .flags = {{.names = "--mem-file",
                        .value_name = "FILE",
                        .help = "the memory file findings are appended to (relative to the "
                                "workspace)",
                        .commands = "task"}}}),
      named(size_key("task.memory_chars", 100, k_max_int,
                     [](Config& c) -> Z& { return c.task.memory_chars; }),
            {.help = "the cap of each update appended to the memory file"}),
      named(size_key("task.min_output_chars", 0, k_max_int,
                     [](Config& c) -> Z& { return c.task.min_output_chars; }),
            {.help = "fewest characters of the reasoner's output"}),
      named(size_key("task.min_memory_chars", 0, k_max_int,
                     [](Config& c) -> Z& { return c.task.min_memory_chars; }),
            {.help = "fewest characters of the update to the memory file, when there is one"}),
      named(string_key("document.path", [](Config& c) -> S& { return c.document.path; }),
            {.help = "the document of a `ralph qa` or `ralph task` session (--doc), recorded so "
                     "it can be resumed"}),
      named(enum_key("document.mode", k_document_mode_names,
                     [](Config& c) -> DocumentMode& { return c.document.mode; }),
            {.help = "what the session does with its document: qa or task (empty: none)"}),
  };
}

} // namespace

std::vector<Key> document_keys() {
  return joined({qa_keys, rlm_keys, task_and_document_keys});
}

} // namespace ralph::config_detail
