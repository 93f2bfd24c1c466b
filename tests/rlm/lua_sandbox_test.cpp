// The Lua sandbox as the model meets it: output, errors, persistence, reserved names, what is
// not available, and the memory, time and output limits. Nothing here may crash the process.

#include "ralph/rlm/sandbox.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

namespace ralph::rlm {
namespace {

using namespace std::chrono_literals;

Result<SubAnswer> no_queries(const SubQuery& /*query*/) {
  return fail(ErrorKind::internal, "no sub-queries in this test");
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

class LuaSandbox : public ::testing::Test {
protected:
  void start(RlmSettings limits) { m_sandbox = make_lua_sandbox(m_text, no_queries, limits); }
  ExecResult execute(std::string_view code) {
    if (!m_sandbox) {
      start({});
    }
    return m_sandbox->execute(code, m_cancel);
  }
  // The output of code that must not fail.
  std::string run(std::string_view code) {
    const ExecResult result = execute(code);
    EXPECT_FALSE(result.error) << result.output;
    return result.output;
  }

  std::string m_text = "the document\nsecond line\n";
  std::unique_ptr<Sandbox> m_sandbox;
  CancelToken m_cancel;
};

TEST_F(LuaSandbox, PrintsAndReturnsValues) {
  EXPECT_EQ(run("print('a', 1, nil, true) return 2, 'x'"), "a\t1\tnil\ttrue\n2\tx\n");
  EXPECT_EQ(run("local x = 1"), "");
  EXPECT_EQ(run("print(setmetatable({}, {__tostring = function() return 'custom' end}))"),
            "custom\n");
}

TEST_F(LuaSandbox, GlobalsPersistBetweenExecutionsLocalsDoNot) {
  run("counter = 41 local hidden = 1 function bump() counter = counter + 1 return counter end");
  EXPECT_EQ(run("return bump(), hidden"), "42\tnil\n");
  EXPECT_EQ(run("return counter"), "42\n");
}

TEST_F(LuaSandbox, RuntimeErrorKeepsEarlierOutputAndNamesTheLine) {
  const ExecResult result = execute("print('before')\nlocal t = nil\nreturn t.field\n");
  EXPECT_TRUE(result.error);
  EXPECT_FALSE(result.reset);
  EXPECT_EQ(result.output.rfind("before\nerror: code:3: attempt to index a nil value", 0), 0U)
      << result.output;
}

TEST_F(LuaSandbox, SyntaxErrorNamesTheLine) {
  const ExecResult result = execute("x = 1\ny = = 2");
  EXPECT_TRUE(result.error);
  EXPECT_TRUE(contains(result.output, "code:2:")) << result.output;
}

TEST_F(LuaSandbox, ErrorObjectsOfAnyKindComeBackAsText) {
  EXPECT_TRUE(contains(execute("error('plain')").output, "code:1: plain"));
  EXPECT_TRUE(contains(execute("error(42)").output, "error: 42"));
  EXPECT_TRUE(contains(execute("error({})").output, "(error object is a table value)"));
  EXPECT_TRUE(contains(execute("error(nil)").output, "(error object is a nil value)"));
  EXPECT_TRUE(contains(execute("error()").output, "(error object is a nil value)"));
  EXPECT_TRUE(contains(
      execute("error(setmetatable({}, {__tostring = function() return 'mine' end}))").output,
      "error: mine"));
  const ExecResult failing =
      execute("error(setmetatable({}, {__tostring = function() error('inside tostring') end}))");
  EXPECT_TRUE(failing.error);
  EXPECT_TRUE(contains(failing.output, "error")) << failing.output;
  EXPECT_EQ(run("return 'still alive'"), "still alive\n");
}

TEST_F(LuaSandbox, ReservedNamesCannotBeReassigned) {
  for (const char* name : {"doc", "llm_query", "llm_query_batched", "print", "string", "table",
                           "math", "utf8", "coroutine", "_G"}) {
    const ExecResult assigned = execute(std::string(name) + " = 1");
    EXPECT_TRUE(assigned.error) << name;
    EXPECT_TRUE(contains(assigned.output,
                         "`" + std::string(name) + "` is reserved and cannot be reassigned"))
        << assigned.output;
    const ExecResult nil = execute(std::string(name) + " = nil");
    EXPECT_TRUE(nil.error) << name;
  }
  const ExecResult function = execute("function print() end");
  EXPECT_TRUE(function.error);
  EXPECT_EQ(run("print(#doc, type(llm_query), type(llm_query_batched), string.upper('ok'), "
                "table.concat({1, 2}), math.max(1, 2), utf8.char(72), type(coroutine.wrap), "
                "_G == _ENV)"),
            "25\tfunction\tfunction\tOK\t12\t2\tH\tfunction\ttrue\n");
}

TEST_F(LuaSandbox, RawsetOnReservedNamesIsUndoneAfterTheExecution) {
  const ExecResult result = execute("rawset(_G, 'doc', 5) rawset(_G, 'print', 6) return doc");
  EXPECT_TRUE(contains(result.output, "5\n")) << result.output;
  EXPECT_TRUE(contains(result.output, "reserved names restored")) << result.output;
  EXPECT_EQ(run("print(#doc) return type(rawget(_G, 'doc'))"), "25\nnil\n");
}

TEST_F(LuaSandbox, GlobalsMetatableIsProtected) {
  const ExecResult result = execute("setmetatable(_G, nil)");
  EXPECT_TRUE(result.error);
  EXPECT_TRUE(contains(result.output, "protected metatable")) << result.output;
  EXPECT_EQ(run("return getmetatable(_G)"), "the global table is protected\n");
  EXPECT_EQ(run("return #doc"), "25\n");
}

TEST_F(LuaSandbox, UnsafeLibrariesAreAbsent) {
  EXPECT_EQ(run("return io, os, package, debug, require, dofile, loadfile, string.dump, warn"),
            "nil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\tnil\n");
  const ExecResult call = execute("require('os')");
  EXPECT_TRUE(call.error);
  EXPECT_TRUE(contains(call.output, "require")) << call.output;
  const ExecResult os_exec = execute("os.execute('true')");
  EXPECT_TRUE(os_exec.error);
}

TEST_F(LuaSandbox, LoadAcceptsTextButNotBinaryChunks) {
  EXPECT_EQ(run("return load('return 1 + 1')()"), "2\n");
  EXPECT_EQ(run("local env = {x = 5} return load('return x', 'c', 'bt', env)()"), "5\n");
  EXPECT_EQ(run("return load('return type(doc)')()"), "userdata\n");
  const std::string binary = run("local f, err = load('\\27Lua\\84\\0\\25\\147\\r\\n\\26\\n', "
                                 "'bin', 'b') return f == nil, err");
  EXPECT_TRUE(contains(binary, "true\t")) << binary;
  EXPECT_TRUE(contains(binary, "binary chunk")) << binary;
  const std::string reader =
      run("local parts = {'\\27Lua', '\\84\\0'} local i = 0 "
          "local f, err = load(function() i = i + 1 return parts[i] end) return f == nil, err");
  EXPECT_TRUE(contains(reader, "binary chunk")) << reader;
}

TEST_F(LuaSandbox, CollectgarbageOnlyCountsAndCollects) {
  EXPECT_EQ(run("return type(collectgarbage('count')), collectgarbage()"), "number\t0\n");
  EXPECT_TRUE(execute("collectgarbage('stop')").error);
}

TEST_F(LuaSandbox, FinalizersAreRefused) {
  const ExecResult result = execute("setmetatable({}, {__gc = function() while true do end end})");
  EXPECT_TRUE(result.error);
  EXPECT_TRUE(contains(result.output, "__gc")) << result.output;
}

TEST_F(LuaSandbox, DeepRecursionIsAnError) {
  const ExecResult lua = execute("local function f(n) return 1 + f(n + 1) end return f(1)");
  EXPECT_TRUE(lua.error);
  EXPECT_TRUE(contains(lua.output, "stack overflow")) << lua.output;
  const ExecResult nested =
      execute("local function nest() return coroutine.wrap(function() return nest()() end) end "
              "return nest()()");
  EXPECT_TRUE(nested.error);
  EXPECT_TRUE(contains(nested.output, "stack overflow")) << nested.output;
  EXPECT_EQ(run("return 1"), "1\n");
}

TEST_F(LuaSandbox, MemoryCapEndsTheExecutionAndTheSandboxGoesOn) {
  start({.memory_bytes = 16U << 20});
  run("kept = 'small global'");
  const ExecResult result =
      execute("local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 100) .. i end");
  EXPECT_TRUE(result.error);
  EXPECT_TRUE(result.out_of_memory);
  EXPECT_FALSE(result.reset) << "the garbage was local: nothing to reset";
  EXPECT_TRUE(contains(result.output, "not enough memory")) << result.output;
  EXPECT_TRUE(contains(result.output, "16 MB")) << result.output;
  EXPECT_EQ(run("return kept"), "small global\n");

  const ExecResult doubling = execute("local s = 'x' while true do s = s .. s end");
  EXPECT_TRUE(doubling.out_of_memory) << doubling.output;
  const ExecResult rep = execute("return string.rep('x', 1e12)");
  EXPECT_TRUE(rep.error);
  const ExecResult whole = execute("return #string.rep('ab', 5e8)");
  EXPECT_TRUE(whole.out_of_memory) << whole.output;
  EXPECT_EQ(run("return kept"), "small global\n");
}

TEST_F(LuaSandbox, MemoryFilledByGlobalsResetsTheSandbox) {
  start({.memory_bytes = 16U << 20});
  const ExecResult result = execute("hog = {} for i = 1, 1e9 do hog[i] = {i} end");
  EXPECT_TRUE(result.out_of_memory);
  EXPECT_TRUE(result.reset);
  EXPECT_TRUE(contains(result.output, "reset")) << result.output;
  EXPECT_EQ(run("return hog, #doc"), "nil\t25\n");
}

TEST_F(LuaSandbox, TimeLimitStopsAnInfiniteLoopAndResets) {
  start({.time_limit = 200ms});
  run("before = 'set'");
  const auto started = std::chrono::steady_clock::now();
  const ExecResult result = execute("print('looping') while true do end");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_TRUE(result.error);
  EXPECT_TRUE(result.timed_out);
  EXPECT_TRUE(result.reset);
  EXPECT_EQ(result.output.rfind("looping\n[execution stopped after 0.2 s", 0), 0U) << result.output;
  EXPECT_TRUE(contains(result.output, "globals from earlier executions are gone"));
  EXPECT_EQ(run("return before, #doc"), "nil\t25\n");
}

TEST_F(LuaSandbox, TimeLimitCannotBeCaught) {
  start({.time_limit = 200ms});
  EXPECT_TRUE(execute("while true do pcall(function() while true do end end) end").timed_out);
  EXPECT_TRUE(execute("while true do coroutine.resume(coroutine.create(function() "
                      "while true do end end)) end")
                  .timed_out);
  EXPECT_TRUE(
      execute("local co = coroutine.wrap(function() while true do end end) co()").timed_out);
  EXPECT_TRUE(execute("while true do xpcall(function() while true do end end, "
                      "function() while true do end end) end")
                  .timed_out);
  EXPECT_EQ(run("return 'usable'"), "usable\n");
}

TEST_F(LuaSandbox, XpcallStillWorks) {
  EXPECT_EQ(
      run("return xpcall(function(a, b) error({a + b}) end, function(e) return e[1] * 10 end, "
          "1, 2)"),
      "false\t30\n");
  EXPECT_EQ(run("return xpcall(function(a) return a, 'ok' end, print, 5)"), "true\t5\tok\n");
  EXPECT_EQ(run("local co = coroutine.wrap(function() "
                "return xpcall(function() coroutine.yield('paused') return 'resumed' end, print) "
                "end) return co(), co()"),
            "paused\ttrue\tresumed\n");
}

TEST_F(LuaSandbox, LoopsInCFunctionsAreBounded) {
  start({.time_limit = 200ms});
  EXPECT_EQ(run("return #string.rep('', 1e15), #string.rep('', 1e15, '')"), "0\t0\n");
  EXPECT_TRUE(execute("table.move({}, 1, 1e15, 1, {})").timed_out);
  const ExecResult insert =
      execute("table.insert(setmetatable({}, {__len = function() return 1e15 end}), 1, 'x')");
  EXPECT_TRUE(insert.error);
  EXPECT_FALSE(insert.timed_out);
}

TEST_F(LuaSandbox, ChunkedTableMoveKeepsOverlappingSemantics) {
  EXPECT_EQ(run("local t = {} for i = 1, 200000 do t[i] = i end "
                "table.move(t, 1, 200000, 2) "
                "local u = {} for i = 1, 200000 do u[i] = i end "
                "table.move(u, 2, 200000, 1) "
                "return t[1], t[2], t[200001], u[1], u[199999], u[200000]"),
            "1\t1\t200000\t2\t200000\t200000\n");
}

TEST_F(LuaSandbox, OutputIsTruncatedWithAMarkerOnCodePointBoundaries) {
  start({.output_chars = 10});
  const ExecResult result = execute("for i = 1, 100 do print('\\u{20AC}') end");
  EXPECT_FALSE(result.error);
  std::string expected;
  for (int i = 0; i < 5; ++i) {
    expected += "\xE2\x82\xAC\n";
  }
  expected += "[output truncated: 190 more chars]\n";
  EXPECT_EQ(result.output, expected);
  const ExecResult one_line = execute("print(string.rep('\\u{20AC}', 20))");
  std::string euros;
  for (int i = 0; i < 10; ++i) {
    euros += "\xE2\x82\xAC";
  }
  EXPECT_EQ(one_line.output, euros + "\n[output truncated: 11 more chars]\n");
}

TEST_F(LuaSandbox, ErrorAfterTruncatedOutputIsStillShown) {
  start({.output_chars = 5});
  const ExecResult result = execute("print(string.rep('y', 50)) error('late failure')");
  EXPECT_TRUE(result.error);
  EXPECT_EQ(result.output, "yyyyy\n[output truncated: 46 more chars]\nerror: code:1: late failure");
}

TEST_F(LuaSandbox, CancelledTokenStopsTheExecutionWithoutReset) {
  run("kept = 1");
  m_cancel.cancel();
  const ExecResult result = execute("while true do end");
  EXPECT_TRUE(result.error);
  EXPECT_FALSE(result.timed_out);
  EXPECT_FALSE(result.reset);
  EXPECT_TRUE(contains(result.output, "[execution cancelled]")) << result.output;
  m_cancel = CancelToken();
  EXPECT_EQ(run("return kept"), "1\n");
}

TEST_F(LuaSandbox, DescribesItsApi) {
  start({.memory_bytes = 64U << 20, .time_limit = 10s, .output_chars = 1500});
  EXPECT_EQ(m_sandbox->language(), "lua");
  const std::string api = m_sandbox->api_description();
  for (const char* part :
       {"doc:len()", "doc:slice(", "doc:find(", "doc:split(", "doc:line_count()", "doc:line(",
        "doc:lines(", "doc:line_of(", "llm_query(", "llm_query_batched(", "print(", "persist",
        "1500 characters", "10 s", "64 MB", "25 bytes", "up to 6 at once"}) {
    EXPECT_TRUE(contains(api, part)) << part << "\n" << api;
  }
}

} // namespace
} // namespace ralph::rlm
