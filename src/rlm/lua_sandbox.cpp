// The Lua 5.4 sandbox: one interpreter state per sandbox, rebuilt when a limit leaves it
// unusable. Limits: a counting allocator (memory), a count hook (time, cancellation), the
// output buffer (characters). Lua is the C++ build, so a Lua error is a C++ exception that
// unwinds our frames; every entry into Lua from here is protected (lua_pcall), and no C++
// exception of ours is let into Lua.

#include "rlm/lua_runtime.h"

#include "ralph/rlm/sandbox.h"

#include <fmt/format.h>
#include <lua.hpp>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

namespace ralph::rlm {
namespace {

using Clock = std::chrono::steady_clock;

// The interpreter's heap, bounded.
struct Heap {
  std::size_t used = 0;
  std::size_t limit = 0;
};

// lua_Alloc. Refusing makes Lua collect garbage and retry, then raise a memory error. Shrinking
// never fails, as Lua requires.
void* allocate(void* ud, void* block, std::size_t old_size, std::size_t new_size) {
  auto* heap = static_cast<Heap*>(ud);
  const std::size_t old_bytes = block != nullptr ? old_size : 0;
  if (new_size == 0) {
    std::free(block);
    heap->used -= old_bytes;
    return nullptr;
  }
  if (new_size > old_bytes && heap->used - old_bytes + new_size > heap->limit) {
    return nullptr;
  }
  void* grown = std::realloc(block, new_size);
  if (grown != nullptr) {
    heap->used = heap->used - old_bytes + new_size;
  }
  return grown;
}

void hook(lua_State* L, lua_Debug* /*unused*/) {
  lua::check_interrupt(L);
}

// Message handler of the top-level call: the error object as text, whatever it is. A
// __tostring that fails here makes the call end with LUA_ERRERR, which is handled too.
int describe_error(lua_State* L) {
  const int type = lua_type(L, 1);
  if (type == LUA_TSTRING) {
    return 1;
  }
  if (type == LUA_TNUMBER) {
    lua_tostring(L, 1);
    return 1;
  }
  if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
    return 1;
  }
  lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  return 1;
}

// Calls the chunk (argument 1) and appends what it returns to the output, tab-separated.
int run_chunk(lua_State* L) {
  lua_call(L, 0, LUA_MULTRET);
  const int results = lua_gettop(L);
  if (results == 0) {
    return 0;
  }
  lua::Execution& ex = *lua::runtime(L).execution;
  for (int i = 1; i <= results; ++i) {
    std::size_t len = 0;
    const char* text = luaL_tolstring(L, i, &len);
    if (i > 1) {
      ex.output.append("\t");
    }
    ex.output.append(std::string_view(text, len));
    lua_pop(L, 1);
  }
  ex.output.append("\n");
  return 0;
}

// Called by Lua on an error outside any protected call; we never make one, but should it
// happen, leaving by an exception beats Lua's abort().
int panic(lua_State* L) {
  const char* message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "unknown error";
  throw std::runtime_error(fmt::format("unprotected Lua error: {}", message));
}

std::string seconds(std::chrono::milliseconds duration) {
  return fmt::format("{:g} s", static_cast<double>(duration.count()) / 1000.0);
}

std::string megabytes(std::size_t bytes) {
  return fmt::format("{:g} MB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

class LuaSandbox final : public Sandbox {
public:
  LuaSandbox(std::string_view document, SubQueryFn sub_query, const RlmSettings& limits)
      : m_runtime{document, LineIndex(document), std::move(sub_query), limits} {
    m_heap.limit = limits.memory_bytes;
    rebuild();
  }

  ~LuaSandbox() override { close(); }
  LuaSandbox(const LuaSandbox&) = delete;
  LuaSandbox& operator=(const LuaSandbox&) = delete;

  ExecResult execute(std::string_view code, const CancelToken& cancel) override;
  std::string_view language() const override { return "lua"; }
  std::string api_description() const override;

private:
  bool rebuild();
  void close();
  // Runs the chunk; the error message when it failed (empty on success).
  int run(std::string_view code, std::string* error);
  // Reserved names the code rawset into the globals, removed again; then a full collection when
  // `collect`, so the heap left after a memory error can be measured.
  std::string clean_up(bool collect);

  lua::Runtime m_runtime;
  Heap m_heap;
  lua_State* m_state = nullptr;
};

void LuaSandbox::close() {
  if (m_state != nullptr) {
    lua_close(m_state);
    m_state = nullptr;
    m_runtime.main = nullptr;
  }
}

bool LuaSandbox::rebuild() {
  close();
  m_heap.used = 0;
  lua_State* L = lua_newstate(allocate, &m_heap);
  if (L == nullptr) {
    return false;
  }
  lua_atpanic(L, panic);
  *static_cast<lua::Runtime**>(lua_getextraspace(L)) = &m_runtime;
  m_state = L;
  m_runtime.main = L;
  lua_pushcfunction(L, lua::open_environment);
  if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
    close();
    return false;
  }
  return true;
}

int LuaSandbox::run(std::string_view code, std::string* error) {
  lua_State* L = m_state;
  lua_settop(L, 0);
  lua_pushcfunction(L, describe_error);
  lua_pushcfunction(L, run_chunk);
  int status = luaL_loadbufferx(L, code.data(), code.size(), "=code", "t");
  if (status == LUA_OK) {
    status = lua_pcall(L, 1, 0, 1);
  }
  if (status != LUA_OK) {
    switch (status) {
    case LUA_ERRMEM:
      *error = "not enough memory";
      break;
    case LUA_ERRERR:
      *error = "error while describing an error (its __tostring failed)";
      break;
    default:
      *error = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "unknown error";
      break;
    }
  }
  lua_settop(L, 0);
  return status;
}

std::string LuaSandbox::clean_up(bool collect) {
  lua_State* L = m_state;
  lua_pushcfunction(L, lua::restore_reserved);
  std::string restored;
  if (lua_pcall(L, 0, 1, 0) == LUA_OK) {
    restored = lua_tostring(L, -1);
  }
  lua_settop(L, 0);
  if (collect) {
    lua_gc(L, LUA_GCCOLLECT);
  }
  return restored;
}

ExecResult LuaSandbox::execute(std::string_view code, const CancelToken& cancel) {
  ExecResult result;
  if (m_state == nullptr && !rebuild()) {
    result.error = true;
    result.reset = true;
    result.output = fmt::format("[the Lua sandbox could not start within its memory limit of {}]",
                                megabytes(m_heap.limit));
    return result;
  }
  lua::Execution ex(cancel, Clock::now() + m_runtime.limits.time_limit,
                    m_runtime.limits.output_chars);
  m_runtime.execution = &ex;
  // A cancelled earlier run left the hook firing at every instruction.
  lua::install_hook(m_state, lua::k_hook_instructions);
  std::string error;
  std::string notes;
  int status = LUA_OK;
  try {
    status = run(code, &error);
    if (!ex.timed_out) {
      if (const std::string restored = clean_up(status == LUA_ERRMEM); !restored.empty()) {
        notes = fmt::format("[reserved names restored: {}; they cannot be reassigned]", restored);
      }
    }
  } catch (const std::exception& e) {
    // Only the panic handler throws; the state cannot be trusted after it.
    error = e.what();
    status = LUA_ERRRUN;
    result.reset = true;
  }
  m_runtime.execution = nullptr;

  result.sub_queries = ex.sub_queries;
  result.usage = ex.usage;
  result.error = status != LUA_OK || ex.timed_out || ex.cancelled;
  std::string trailer;
  if (ex.timed_out) {
    result.timed_out = true;
    result.reset = true;
    trailer = fmt::format("[execution stopped after {} (time limit). The sandbox was reset: "
                          "globals from earlier executions are gone.]",
                          seconds(m_runtime.limits.time_limit));
  } else if (ex.cancelled) {
    trailer = "[execution cancelled]";
  } else if (status == LUA_ERRMEM) {
    result.out_of_memory = true;
    trailer = fmt::format("error: not enough memory (the sandbox's limit is {})",
                          megabytes(m_heap.limit));
    // Lua survives a memory error, but globals still holding most of the heap would make every
    // later execution fail the same way.
    if (m_heap.used > m_heap.limit / 2) {
      result.reset = true;
      trailer += ". The sandbox was reset: globals from earlier executions are gone.";
    }
  } else if (status != LUA_OK) {
    trailer = "error: " + error;
  }
  if (!notes.empty()) {
    trailer = trailer.empty() ? notes : trailer + "\n" + notes;
  }
  if (result.reset) {
    rebuild();
  }
  result.output = ex.output.finish(trailer);
  return result;
}

std::string LuaSandbox::api_description() const {
  const RlmSettings& limits = m_runtime.limits;
  return fmt::format(
      R"(Lua 5.4. The document is the read-only global `doc` ({} bytes); read it through its
methods (positions are 1-based byte offsets, ranges inclusive):
  doc:len() or #doc                 length in bytes
  doc:slice(i [, j])                bytes i..j as a string (negative counts from the end, as string.sub)
  doc:find(text [, init [, max]])   array of the positions of every occurrence of the plain text
                                    (no patterns), from init, at most max
  doc:split(sep [, max])            array of the pieces between occurrences of the plain text sep
                                    (at most max pieces, the last holding the rest)
  doc:line_count()                  number of lines
  doc:line(n)                       line n without its line break, nil past the end
  doc:lines(from, to)               array of lines from..to
  doc:line_of(pos)                  the number of the line holding byte pos
llm_query(query, context)           asks a language model `query` about `context` (pass a slice, not
                                    the whole document); returns the answer, or nil and an error
llm_query_batched(items)            items = {{{{query=..., context=...}}, ...}} (or two arrays: queries,
                                    contexts); asks up to {} at once; answers in order, "error: ..."
                                    for a failed one
print(...)                          what you will see, with the chunk's return values
Output: at most {} characters per execution, the rest is cut. Globals persist between executions;
locals do not. doc, llm_query, llm_query_batched, print, string, table, math, utf8, coroutine and
_G are reserved. Available: the base functions, string, table, math, utf8, coroutine; no io, os,
package, debug, require or file loading. Limits per execution: {} of run time, waiting for
llm_query excluded (then the sandbox is reset and globals are lost); {} of memory.)",
      m_runtime.document.size(), limits.concurrency, limits.output_chars,
      seconds(limits.time_limit), megabytes(limits.memory_bytes));
}

} // namespace

namespace lua {

Runtime& runtime(lua_State* L) {
  return **static_cast<Runtime**>(lua_getextraspace(L));
}

void install_hook(lua_State* L, int every) {
  lua_sethook(L, hook, LUA_MASKCOUNT, every);
}

void check_interrupt(lua_State* L) {
  Runtime& rt = runtime(L);
  Execution* ex = rt.execution;
  if (ex == nullptr) {
    return;
  }
  if (!ex->timed_out && !ex->cancelled) {
    if (Clock::now() >= ex->deadline) {
      ex->timed_out = true;
    } else if (ex->cancel->cancelled()) {
      ex->cancelled = true;
    } else {
      return;
    }
  }
  // Every instruction from now on raises again, in this thread and in the main one, so the
  // error cannot be caught and ignored by pcall or coroutine.resume.
  install_hook(L, 1);
  if (rt.main != nullptr && rt.main != L) {
    install_hook(rt.main, 1);
  }
  luaL_error(L, ex->timed_out ? "time limit reached" : "execution cancelled");
}

} // namespace lua

std::unique_ptr<Sandbox> make_lua_sandbox(std::string_view document, SubQueryFn sub_query,
                                          const RlmSettings& settings) {
  return std::make_unique<LuaSandbox>(document, std::move(sub_query), settings);
}

} // namespace ralph::rlm
