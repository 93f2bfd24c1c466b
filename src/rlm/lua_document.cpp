// The `doc` object: a userdata with no copy of the text; every method reads the mapped bytes
// through the runtime and copies out only what it returns.

#include "rlm/lua_runtime.h"

#include <lua.hpp>

#include <algorithm>
#include <cstring>

namespace ralph::rlm::lua {
namespace {

constexpr const char* k_type = "document";
// Long scans (find, split) look at the clock this often, so a search over a gigabyte still
// stops at the time limit.
constexpr std::size_t k_check_bytes = std::size_t{8} << 20;
constexpr lua_Integer k_check_items = 4096;

std::string_view document(lua_State* L) {
  luaL_checkudata(L, 1, k_type);
  return runtime(L).document;
}

// 1-based position `pos` of a text of `len` bytes, the way string.sub reads its first index.
lua_Integer start_index(lua_Integer pos, lua_Integer len) {
  if (pos > 0) {
    return pos;
  }
  if (pos == 0 || pos < -len) {
    return 1;
  }
  return len + pos + 1;
}

// ... and its last index.
lua_Integer end_index(lua_Integer pos, lua_Integer len) {
  if (pos > len) {
    return len;
  }
  if (pos >= 0) {
    return pos;
  }
  if (pos < -len) {
    return 0;
  }
  return len + pos + 1;
}

// The next occurrence of `needle` at or after `from`, or npos; memmem over windows of a few MB
// with an interrupt check between them.
std::size_t next_occurrence(lua_State* L, std::string_view text, std::string_view needle,
                            std::size_t from) {
  const std::size_t n = needle.size();
  while (from + n <= text.size()) {
    const std::size_t limit = std::min(text.size(), from + k_check_bytes + n - 1);
    const void* hit = ::memmem(text.data() + from, limit - from, needle.data(), n);
    if (hit != nullptr) {
      return static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
    }
    from = limit - n + 1; // every start up to limit - n was tried
    check_interrupt(L);
  }
  return std::string_view::npos;
}

LineIndex& line_index(lua_State* L) {
  Runtime& rt = runtime(L);
  if (!rt.lines.complete()) {
    const bool done = rt.lines.build([&] {
      Execution* ex = rt.execution;
      return ex == nullptr ||
             (std::chrono::steady_clock::now() < ex->deadline && !ex->cancel->cancelled());
    });
    if (!done) {
      check_interrupt(L);
    }
  }
  return rt.lines;
}

int doc_len(lua_State* L) {
  lua_pushinteger(L, static_cast<lua_Integer>(document(L).size()));
  return 1;
}

int doc_slice(lua_State* L) {
  const std::string_view text = document(L);
  const auto len = static_cast<lua_Integer>(text.size());
  const lua_Integer first = start_index(luaL_checkinteger(L, 2), len);
  const lua_Integer last = end_index(luaL_optinteger(L, 3, -1), len);
  if (first > last) {
    lua_pushliteral(L, "");
    return 1;
  }
  lua_pushlstring(L, text.data() + first - 1, static_cast<std::size_t>(last - first + 1));
  return 1;
}

int doc_find(lua_State* L) {
  const std::string_view text = document(L);
  std::size_t needle_len = 0;
  const char* needle_data = luaL_checklstring(L, 2, &needle_len);
  luaL_argcheck(L, needle_len > 0, 2, "the text to find must not be empty");
  const std::string_view needle(needle_data, needle_len);
  const lua_Integer first =
      start_index(luaL_optinteger(L, 3, 1), static_cast<lua_Integer>(text.size()));
  const lua_Integer max = luaL_optinteger(L, 4, LUA_MAXINTEGER);
  lua_newtable(L);
  lua_Integer found = 0;
  std::size_t from = static_cast<std::size_t>(first - 1);
  while (found < max && from < text.size()) {
    const std::size_t at = next_occurrence(L, text, needle, from);
    if (at == std::string_view::npos) {
      break;
    }
    ++found;
    lua_pushinteger(L, static_cast<lua_Integer>(at) + 1);
    lua_rawseti(L, -2, found);
    from = at + 1; // overlapping occurrences count: "aa" is at 1, 2 and 3 in "aaaa"
    if (found % k_check_items == 0) {
      check_interrupt(L);
    }
  }
  return 1;
}

int doc_split(lua_State* L) {
  const std::string_view text = document(L);
  std::size_t sep_len = 0;
  const char* sep_data = luaL_checklstring(L, 2, &sep_len);
  luaL_argcheck(L, sep_len > 0, 2, "the separator must not be empty");
  const std::string_view sep(sep_data, sep_len);
  const lua_Integer max = luaL_optinteger(L, 3, LUA_MAXINTEGER);
  luaL_argcheck(L, max >= 1, 3, "at least one piece");
  lua_newtable(L);
  lua_Integer pieces = 0;
  std::size_t from = 0;
  while (pieces + 1 < max) {
    const std::size_t at = next_occurrence(L, text, sep, from);
    if (at == std::string_view::npos) {
      break;
    }
    lua_pushlstring(L, text.data() + from, at - from);
    lua_rawseti(L, -2, ++pieces);
    from = at + sep.size();
    if (pieces % k_check_items == 0) {
      check_interrupt(L);
    }
  }
  lua_pushlstring(L, text.data() + from, text.size() - from);
  lua_rawseti(L, -2, pieces + 1);
  return 1;
}

int doc_line_count(lua_State* L) {
  document(L);
  lua_pushinteger(L, static_cast<lua_Integer>(line_index(L).line_count()));
  return 1;
}

int doc_line(lua_State* L) {
  document(L);
  const lua_Integer number = luaL_checkinteger(L, 2);
  const LineIndex& lines = line_index(L);
  if (number < 1 || static_cast<std::size_t>(number) > lines.line_count()) {
    lua_pushnil(L);
    return 1;
  }
  const std::string_view line = lines.line(static_cast<std::size_t>(number));
  lua_pushlstring(L, line.data(), line.size());
  return 1;
}

int doc_lines(lua_State* L) {
  document(L);
  const lua_Integer from = std::max<lua_Integer>(1, luaL_checkinteger(L, 2));
  const lua_Integer to = luaL_checkinteger(L, 3);
  const LineIndex& lines = line_index(L);
  const lua_Integer last = std::min(to, static_cast<lua_Integer>(lines.line_count()));
  lua_newtable(L);
  if (from > last) {
    return 1;
  }
  std::size_t start = lines.line_start(static_cast<std::size_t>(from));
  for (lua_Integer number = from; number <= last; ++number) {
    const std::string_view line = lines.line_at(start, &start);
    lua_pushlstring(L, line.data(), line.size());
    lua_rawseti(L, -2, number - from + 1);
    if (number % k_check_items == 0) {
      check_interrupt(L);
    }
  }
  return 1;
}

int doc_line_of(lua_State* L) {
  const std::string_view text = document(L);
  const lua_Integer pos = luaL_checkinteger(L, 2);
  if (pos < 1 || static_cast<std::size_t>(pos) > text.size()) {
    lua_pushnil(L);
    return 1;
  }
  const LineIndex& lines = line_index(L);
  lua_pushinteger(L, static_cast<lua_Integer>(lines.line_of(static_cast<std::size_t>(pos) - 1)));
  return 1;
}

int doc_newindex(lua_State* L) {
  return luaL_error(L, "`doc` is read-only: its fields cannot be set");
}

int doc_tostring(lua_State* L) {
  lua_pushfstring(L, "document (%I bytes)", static_cast<lua_Integer>(document(L).size()));
  return 1;
}

constexpr luaL_Reg k_methods[] = {
    {"len", doc_len},     {"slice", doc_slice},           {"find", doc_find},
    {"split", doc_split}, {"line_count", doc_line_count}, {"line", doc_line},
    {"lines", doc_lines}, {"line_of", doc_line_of},       {nullptr, nullptr},
};

} // namespace

void push_document(lua_State* L) {
  lua_newuserdatauv(L, 0, 0);
  luaL_newmetatable(L, k_type);
  luaL_newlib(L, k_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, doc_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, doc_len);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, doc_tostring);
  lua_setfield(L, -2, "__tostring");
  // getmetatable(doc) answers this instead of the table, so the methods cannot be replaced.
  lua_pushliteral(L, "the document is read-only");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
}

} // namespace ralph::rlm::lua
