#pragma once

// Shared by the lua_*.cpp files: what the Lua C functions reach through the state's extra
// space. Declares lua_State only, so nothing outside those files sees <lua.hpp>.

#include "rlm/line_index.h"
#include "rlm/output_buffer.h"

#include "ralph/core/cancel.h"
#include "ralph/core/message.h"
#include "ralph/rlm/sandbox.h"

#include <chrono>
#include <cstddef>
#include <string_view>

struct lua_State;

namespace ralph::rlm::lua {

// One execute() call.
struct Execution {
  Execution(const CancelToken& token, std::chrono::steady_clock::time_point until,
            std::size_t output_chars)
      : cancel(&token), deadline(until), output(output_chars) {}

  const CancelToken* cancel;
  std::chrono::steady_clock::time_point deadline; // pushed back while sub-queries run
  OutputBuffer output;
  Usage usage;
  int sub_queries = 0;
  bool timed_out = false;
  bool cancelled = false;
};

// The sandbox's side of every Lua state it builds; outlives them all.
struct Runtime {
  std::string_view document;
  LineIndex lines;
  SubQueryFn sub_query;
  RlmSettings limits;
  lua_State* main = nullptr;
  Execution* execution = nullptr; // set while code runs
};

// The runtime of the state `L` belongs to (any of its threads).
Runtime& runtime(lua_State* L);

// Raises a Lua error when the execution's deadline has passed or it was cancelled, and makes
// every thread of the state raise it again at its next instruction, so `pcall` cannot swallow
// it. The count hook calls it; so do C functions that run long.
void check_interrupt(lua_State* L);

// The count hook that calls check_interrupt, and how many instructions run between calls.
void install_hook(lua_State* L, int every);
inline constexpr int k_hook_instructions = 1000;

// Each pushes one value.
void push_document(lua_State* L);    // the read-only `doc` userdata
void push_llm_query(lua_State* L);   // llm_query(query, context)
void push_llm_batched(lua_State* L); // llm_query_batched(items) / (queries, contexts)

// Opens the allowed libraries, wraps the unsafe entry points and installs the protected
// globals (reserved names reached through the globals' metatable). A lua_CFunction: run it
// with lua_pcall on a fresh state.
int open_environment(lua_State* L);

// Removes reserved names the code set with rawset; returns them comma-separated (empty when
// none). A lua_CFunction pushing one string: run it with lua_pcall.
int restore_reserved(lua_State* L);

} // namespace ralph::rlm::lua
