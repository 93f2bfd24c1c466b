// What the model's code can reach: the safe standard libraries, wrappers around the entry
// points that could load bytecode, hide the document's metatable or run unbounded in C, and
// globals whose reserved names live in the globals' __index table, out of reach of assignment.

#include "rlm/lua_runtime.h"

#include <lua.hpp>

#include <algorithm>
#include <string>
#include <string_view>

namespace ralph::rlm::lua {
namespace {

constexpr const char* k_reserved_key = "ralph.reserved";
// Elements table.move copies between two interrupt checks.
constexpr lua_Integer k_move_chunk = 1 << 16;
// Beyond this, a length comes from a __len metamethod, not from elements that fit in memory.
constexpr lua_Integer k_max_shift = lua_Integer{1} << 26;

// print(...): into the execution's output, tab-separated, one line per call.
int print(lua_State* L) {
  Execution* ex = runtime(L).execution;
  const int n = lua_gettop(L);
  for (int i = 1; i <= n; ++i) {
    std::size_t len = 0;
    const char* text = luaL_tolstring(L, i, &len);
    if (ex != nullptr) {
      if (i > 1) {
        ex->output.append("\t");
      }
      ex->output.append(std::string_view(text, len));
    }
    lua_pop(L, 1);
  }
  if (ex != nullptr) {
    ex->output.append("\n");
  }
  return 0;
}

// load(chunk, name, mode, env) with mode forced to text: bytecode can corrupt the interpreter.
int safe_load(lua_State* L) {
  const int n = std::max(lua_gettop(L), 3);
  lua_settop(L, n); // keeps an explicit env (argument 4) and its absence apart
  lua_pushliteral(L, "t");
  lua_replace(L, 3);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

// setmetatable without finalizers: a __gc runs with hooks off, so a loop in it could not be
// stopped. The document gets a clearer refusal than "table expected".
int safe_setmetatable(lua_State* L) {
  if (luaL_testudata(L, 1, "document") != nullptr) {
    return luaL_error(L, "`doc` is read-only: its metatable cannot be changed");
  }
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL) {
      return luaL_error(L, "__gc metamethods are not available in the sandbox");
    }
    lua_pop(L, 1);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

int safe_collectgarbage(lua_State* L) {
  const std::string_view option = luaL_optstring(L, 1, "collect");
  if (option != "count" && option != "collect") {
    return luaL_error(L, "collectgarbage: only \"count\" and \"collect\" are available");
  }
  lua_settop(L, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 1, LUA_MULTRET);
  return lua_gettop(L);
}

// string.rep of an empty string (and separator) loops n times in C without allocating, out of
// the hook's and the memory cap's reach.
int safe_rep(lua_State* L) {
  std::size_t len = 0;
  std::size_t sep_len = 0;
  luaL_checklstring(L, 1, &len);
  luaL_checkinteger(L, 2);
  luaL_optlstring(L, 3, "", &sep_len);
  if (len + sep_len == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

// table.move(a1, f, e, t [, a2]) in chunks with an interrupt check between them: moving nils
// allocates nothing, so a huge range would otherwise loop in C unbounded. The chunks go in the
// direction the original would, so overlapping moves give the same result.
int safe_move(lua_State* L) {
  const lua_Integer f = luaL_checkinteger(L, 2);
  const lua_Integer e = luaL_checkinteger(L, 3);
  const lua_Integer t = luaL_checkinteger(L, 4);
  const int dest = lua_isnoneornil(L, 5) ? 1 : 5;
  if (e < f || e - f < k_move_chunk) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
  }
  luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
  const lua_Integer n = e - f + 1;
  luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
  const bool forward = t > e || t <= f || (dest == 5 && !lua_rawequal(L, 1, 5));
  for (lua_Integer done = 0; done < n; done += k_move_chunk) {
    const lua_Integer size = std::min(k_move_chunk, n - done);
    const lua_Integer offset = forward ? done : n - done - size;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushinteger(L, f + offset);
    lua_pushinteger(L, f + offset + size - 1);
    lua_pushinteger(L, t + offset);
    lua_pushvalue(L, dest);
    lua_call(L, 5, 0);
    check_interrupt(L);
  }
  lua_pushvalue(L, dest);
  return 1;
}

// table.insert and table.remove shift every element up to #t in C; a lying __len could make
// that unbounded. Real tables that fit in memory are far below the limit.
int safe_shift(lua_State* L) {
  luaL_checkany(L, 1);
  if (luaL_len(L, 1) > k_max_shift) {
    return luaL_error(L, "table too long for insert or remove (its __len says so)");
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// The message handler of xpcall, guarded: an error raised by the count hook reaches the
// handler with hooks still off, so a handler that loops could never be stopped. Once the
// execution is being stopped the error passes through untouched.
int guarded_handler(lua_State* L) {
  const Execution* ex = runtime(L).execution;
  if (ex != nullptr && (ex->timed_out || ex->cancelled)) {
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

int all_results(lua_State* L, int /*status*/, lua_KContext /*context*/) {
  return lua_gettop(L);
}

int safe_xpcall(lua_State* L) {
  luaL_checkany(L, 1);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushvalue(L, 2);
  lua_pushcclosure(L, guarded_handler, 1);
  lua_replace(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  // With a continuation, so code inside xpcall can still yield its coroutine.
  lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, all_results);
  return lua_gettop(L);
}

// Replaces table[name] with `wrapper` closing over the original.
void wrap(lua_State* L, int table, const char* name, lua_CFunction wrapper) {
  lua_getfield(L, table, name);
  lua_pushcclosure(L, wrapper, 1);
  lua_setfield(L, table, name);
}

// __newindex of the globals: a reserved name (a key of the upvalue table) is refused.
int guard_globals(lua_State* L) {
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) {
    return luaL_error(L, "`%s` is reserved and cannot be reassigned", lua_tostring(L, 2));
  }
  lua_pop(L, 1);
  lua_rawset(L, 1);
  return 0;
}

} // namespace

int open_environment(lua_State* L) {
  constexpr luaL_Reg k_libraries[] = {
      {LUA_GNAME, luaopen_base},       {LUA_STRLIBNAME, luaopen_string},
      {LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
      {LUA_UTF8LIBNAME, luaopen_utf8}, {LUA_COLIBNAME, luaopen_coroutine},
  };
  for (const luaL_Reg& library : k_libraries) {
    luaL_requiref(L, library.name, library.func, 1);
    lua_pop(L, 1);
  }
  lua_pushglobaltable(L);
  const int globals = lua_gettop(L);
  for (const char* name : {"dofile", "loadfile", "require", "warn", "print"}) {
    lua_pushnil(L);
    lua_setfield(L, globals, name);
  }
  wrap(L, globals, "load", safe_load);
  wrap(L, globals, "setmetatable", safe_setmetatable);
  wrap(L, globals, "collectgarbage", safe_collectgarbage);
  wrap(L, globals, "xpcall", safe_xpcall);
  lua_getfield(L, globals, LUA_STRLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  wrap(L, lua_gettop(L), "rep", safe_rep);
  lua_pop(L, 1);
  lua_getfield(L, globals, LUA_TABLIBNAME);
  wrap(L, lua_gettop(L), "move", safe_move);
  wrap(L, lua_gettop(L), "insert", safe_shift);
  wrap(L, lua_gettop(L), "remove", safe_shift);
  lua_pop(L, 1);

  // The reserved names move out of the globals into the table their __index reads.
  lua_newtable(L);
  const int reserved = lua_gettop(L);
  for (const char* name : {LUA_GNAME, LUA_STRLIBNAME, LUA_TABLIBNAME, LUA_MATHLIBNAME,
                           LUA_UTF8LIBNAME, LUA_COLIBNAME}) {
    lua_getfield(L, globals, name);
    lua_setfield(L, reserved, name);
    lua_pushnil(L);
    lua_setfield(L, globals, name);
  }
  lua_pushcfunction(L, print);
  lua_setfield(L, reserved, "print");
  push_document(L);
  lua_setfield(L, reserved, "doc");
  push_llm_query(L);
  lua_setfield(L, reserved, "llm_query");
  push_llm_batched(L);
  lua_setfield(L, reserved, "llm_query_batched");

  lua_createtable(L, 0, 3);
  lua_pushvalue(L, reserved);
  lua_setfield(L, -2, "__index");
  lua_pushvalue(L, reserved);
  lua_pushcclosure(L, guard_globals, 1);
  lua_setfield(L, -2, "__newindex");
  // setmetatable(_G, ...) is refused and getmetatable(_G) shows this instead of the table.
  lua_pushliteral(L, "the global table is protected");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, globals);

  lua_pushvalue(L, reserved);
  lua_setfield(L, LUA_REGISTRYINDEX, k_reserved_key);
  return 0;
}

int restore_reserved(lua_State* L) {
  std::string restored;
  lua_pushglobaltable(L);
  const int globals = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, k_reserved_key);
  const int reserved = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, reserved) != 0) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    if (lua_rawget(L, globals) != LUA_TNIL) {
      lua_pushvalue(L, -2);
      lua_pushnil(L);
      lua_rawset(L, globals);
      restored += restored.empty() ? "" : ", ";
      restored += lua_tostring(L, -2);
    }
    lua_pop(L, 1);
  }
  lua_pushlstring(L, restored.data(), restored.size());
  return 1;
}

} // namespace ralph::rlm::lua
