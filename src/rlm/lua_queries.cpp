// llm_query and llm_query_batched: the model's code asks semantic questions about slices.
// The sub-query function runs outside Lua (helper threads for batches); time spent waiting for
// answers does not count against the execution's time limit, which is there to stop runaway
// code. The caller's CancelToken still stops everything.

#include "rlm/lua_runtime.h"
#include "rlm/query_batch.h"

#include <fmt/format.h>
#include <lua.hpp>

#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace ralph::rlm::lua {
namespace {

using Clock = std::chrono::steady_clock;

std::string message_of(const Error& error) {
  return error.message.empty() ? std::string(to_string(error.kind)) : error.message;
}

// The string (or number) on top of the stack, popped; nullopt when it is neither.
std::optional<std::string> pop_string(lua_State* L) {
  std::optional<std::string> value;
  if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) {
    std::size_t len = 0;
    const char* data = lua_tolstring(L, -1, &len);
    value.emplace(data, len);
  }
  lua_pop(L, 1);
  return value;
}

// The queries of llm_query_batched({{query=..., context=...}, ...}) or (queries, contexts). An
// item may also be a plain string: a query without context.
std::vector<SubQuery> read_batch(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const bool parallel = !lua_isnoneornil(L, 2);
  if (parallel) {
    luaL_checktype(L, 2, LUA_TTABLE);
  }
  const lua_Integer count = luaL_len(L, 1);
  std::vector<SubQuery> queries;
  for (lua_Integer i = 1; i <= count; ++i) {
    std::optional<std::string> query;
    std::optional<std::string> context;
    if (lua_geti(L, 1, i) == LUA_TTABLE && !parallel) {
      lua_getfield(L, -1, "query");
      query = pop_string(L);
      lua_getfield(L, -1, "context");
      context = pop_string(L);
      lua_pop(L, 1);
    } else {
      query = pop_string(L);
      if (parallel) {
        lua_geti(L, 2, i);
        context = pop_string(L);
      }
    }
    if (!query) {
      luaL_error(L,
                 parallel ? "llm_query_batched: queries[%I] is not a string"
                          : "llm_query_batched: item %I is neither {query=..., context=...} nor "
                            "a string",
                 i);
    }
    queries.push_back(SubQuery{std::move(*query), context.value_or(std::string())});
    check_interrupt(L);
  }
  return queries;
}

// Runs the batch with the clock paused; exceptions stay on this side of Lua.
bool ask_all(Runtime& rt, Execution& ex, const std::vector<SubQuery>& queries, BatchAnswers* out,
             std::string* failure) {
  const Clock::time_point started = Clock::now();
  try {
    *out = run_batch(queries, rt.sub_query, rt.limits.concurrency, *ex.cancel);
  } catch (const std::exception& e) {
    *failure = e.what();
  }
  ex.deadline += Clock::now() - started;
  ex.sub_queries += out->calls;
  for (const Result<SubAnswer>& answer : out->answers) {
    if (answer) {
      ex.usage += answer->usage;
    }
  }
  return failure->empty();
}

int llm_query(lua_State* L) {
  Runtime& rt = runtime(L);
  Execution& ex = *rt.execution;
  std::vector<SubQuery> queries(1);
  std::size_t len = 0;
  const char* query = luaL_checklstring(L, 1, &len);
  queries[0].query.assign(query, len);
  const char* context = luaL_optlstring(L, 2, "", &len);
  queries[0].context.assign(context, len);
  check_interrupt(L);
  BatchAnswers answers;
  std::string failure;
  if (!ask_all(rt, ex, queries, &answers, &failure)) {
    return luaL_error(L, "llm_query: %s", failure.c_str());
  }
  check_interrupt(L);
  const Result<SubAnswer>& answer = answers.answers[0];
  if (answer) {
    lua_pushlstring(L, answer->text.data(), answer->text.size());
    return 1;
  }
  // Also in the output, so the model sees the failure even if its code drops the nil.
  const std::string message = message_of(answer.error());
  ex.output.append(fmt::format("[llm_query failed: {}]\n", message));
  lua_pushnil(L);
  lua_pushlstring(L, message.data(), message.size());
  return 2;
}

int llm_query_batched(lua_State* L) {
  Runtime& rt = runtime(L);
  Execution& ex = *rt.execution;
  const std::vector<SubQuery> queries = read_batch(L);
  check_interrupt(L);
  BatchAnswers answers;
  std::string failure;
  if (!ask_all(rt, ex, queries, &answers, &failure)) {
    return luaL_error(L, "llm_query_batched: %s", failure.c_str());
  }
  check_interrupt(L);
  lua_createtable(L, static_cast<int>(answers.answers.size()), 0);
  lua_Integer index = 0;
  for (const Result<SubAnswer>& answer : answers.answers) {
    if (answer) {
      lua_pushlstring(L, answer->text.data(), answer->text.size());
    } else {
      const std::string text = "error: " + message_of(answer.error());
      lua_pushlstring(L, text.data(), text.size());
    }
    lua_rawseti(L, -2, ++index);
  }
  return 1;
}

} // namespace

void push_llm_query(lua_State* L) {
  lua_pushcfunction(L, llm_query);
}

void push_llm_batched(lua_State* L) {
  lua_pushcfunction(L, llm_query_batched);
}

} // namespace ralph::rlm::lua
