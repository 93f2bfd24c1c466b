#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/core/message.h"
#include "ralph/core/settings.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace ralph::rlm {

// One semantic question about a piece of the document, asked by the model's code.
struct SubQuery {
  std::string query;
  std::string context;
};

struct SubAnswer {
  std::string text;
  Usage usage;
};

// Answers a sub-query (`llm_query`). Called on the sandbox's thread and, for batches, from up to
// `RlmSettings::concurrency` helper threads at once: it must be thread-safe. An
// error (budget spent, provider failure) goes back to the code as a message, never a crash.
using SubQueryFn = std::function<Result<SubAnswer>(const SubQuery&)>;

// What one execution gave back, as the model is shown it.
struct ExecResult {
  // What the code printed, then the values it returned (if any), cut to the output budget with
  // a marker saying how much was cut; then any error message or note from the runtime (time
  // limit, reset, cancellation), kept even when the printed text used up the budget.
  std::string output;
  bool error = false;         // the code raised an error (its message is in `output`)
  bool timed_out = false;     // the time limit ended it
  bool out_of_memory = false; // the memory cap ended it
  bool reset = false;         // the interpreter was rebuilt: globals from earlier runs are gone
  int sub_queries = 0;        // sub-query calls this execution made (batched ones included)
  Usage usage;                // their tokens
};

// A code interpreter the model explores a document with. Globals persist between executions
// unless a limit forced a reset. Nothing the code does can crash the process: errors, limits and
// forbidden operations all come back as an ExecResult. Not thread-safe (one per attempt).
class Sandbox {
public:
  virtual ~Sandbox() = default;
  virtual ExecResult execute(std::string_view code, const CancelToken& cancel) = 0;
  // "lua": what the model is told to write, and the name of its tool.
  virtual std::string_view language() const = 0;
  // The API the code can use (the document object, llm_query, ...), for the model's prompt.
  virtual std::string api_description() const = 0;
};

// A Lua 5.4 sandbox over `document`, which must outlive it. The document is a read-only global
// `doc`; `llm_query` and `llm_query_batched` call `sub_query`. Of `settings`, the sandbox takes
// its heap (`memory_bytes`), the time limit of one execution (sub-query waits excluded), the code
// points of output per execution, and how many batched sub-queries run at once (`concurrency`).
std::unique_ptr<Sandbox> make_lua_sandbox(std::string_view document, SubQueryFn sub_query,
                                          const RlmSettings& settings = {});

} // namespace ralph::rlm
