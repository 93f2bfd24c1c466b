// The `doc` object of the Lua sandbox: every method, its edges, and that it is read-only.

#include "ralph/rlm/sandbox.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ralph::rlm {
namespace {

Result<SubAnswer> no_queries(const SubQuery& /*query*/) {
  return fail(ErrorKind::internal, "no sub-queries in this test");
}

class LuaDocument : public ::testing::Test {
protected:
  // The sandbox reads `m_text` in place: set it before the first run.
  std::string run(std::string_view code) {
    if (!m_sandbox) {
      m_sandbox = make_lua_sandbox(m_text, no_queries);
    }
    const ExecResult result = m_sandbox->execute(code, m_cancel);
    EXPECT_FALSE(result.error) << result.output;
    return result.output;
  }
  ExecResult run_failing(std::string_view code) {
    if (!m_sandbox) {
      m_sandbox = make_lua_sandbox(m_text, no_queries);
    }
    return m_sandbox->execute(code, m_cancel);
  }

  std::string m_text;
  std::unique_ptr<Sandbox> m_sandbox;
  CancelToken m_cancel;
};

TEST_F(LuaDocument, LengthInBytes) {
  m_text = "h\xC3\xA9llo"; // 6 bytes, 5 characters
  EXPECT_EQ(run("return doc:len(), #doc"), "6\t6\n");
  EXPECT_EQ(run("return tostring(doc)"), "document (6 bytes)\n");
}

TEST_F(LuaDocument, SliceReadsLikeStringSub) {
  m_text = "hello world";
  EXPECT_EQ(run("return doc:slice(1, 5)"), "hello\n");
  EXPECT_EQ(run("return doc:slice(7)"), "world\n");
  EXPECT_EQ(run("return doc:slice(-5, -1)"), "world\n");
  EXPECT_EQ(run("return doc:slice(0, 3)"), "hel\n");
  EXPECT_EQ(run("return doc:slice(-100, 2)"), "he\n");
  EXPECT_EQ(run("return doc:slice(7, 100)"), "world\n");
  EXPECT_EQ(run("return '[' .. doc:slice(100, 200) .. ']'"), "[]\n");
  EXPECT_EQ(run("return '[' .. doc:slice(5, 2) .. ']'"), "[]\n");
  EXPECT_EQ(run("return '[' .. doc:slice(3, -100) .. ']'"), "[]\n");
}

TEST_F(LuaDocument, FindReturnsEveryOccurrenceIncludingOverlapping) {
  m_text = "aaaa";
  EXPECT_EQ(run("return table.concat(doc:find('aa'), ',')"), "1,2,3\n");
  EXPECT_EQ(run("return table.concat(doc:find('aa', 2), ',')"), "2,3\n");
  EXPECT_EQ(run("return table.concat(doc:find('aa', -2), ',')"), "3\n");
  EXPECT_EQ(run("return table.concat(doc:find('aa', 1, 2), ',')"), "1,2\n");
  EXPECT_EQ(run("return #doc:find('b'), #doc:find('aaaaa'), #doc:find('a', 10)"), "0\t0\t0\n");
}

TEST_F(LuaDocument, FindIsPlainText) {
  m_text = "a.b a%b (x) a.b";
  EXPECT_EQ(run("return table.concat(doc:find('a.b'), ',')"), "1,13\n");
  EXPECT_EQ(run("return table.concat(doc:find('(x)'), ',')"), "9\n");
}

TEST_F(LuaDocument, FindSeesMatchesAcrossScanWindows) {
  // The scan works in windows of 8 MB; put matches across and at the window edges.
  m_text.assign(20U << 20, '.');
  const std::size_t edge = 8U << 20;
  for (std::size_t at : {std::size_t{0}, edge - 3, edge + 10, 2 * edge - 1, m_text.size() - 6}) {
    m_text.replace(at, 6, "NEEDLE");
  }
  const std::string expected = std::to_string(1) + "," + std::to_string(edge - 3 + 1) + "," +
                               std::to_string(edge + 11) + "," + std::to_string(2 * edge) + "," +
                               std::to_string(m_text.size() - 5) + "\n";
  EXPECT_EQ(run("return table.concat(doc:find('NEEDLE'), ',')"), expected);
}

TEST_F(LuaDocument, EmptyNeedleOrSeparatorIsAnError) {
  m_text = "abc";
  const ExecResult find = run_failing("return doc:find('')");
  EXPECT_TRUE(find.error);
  EXPECT_NE(find.output.find("must not be empty"), std::string::npos) << find.output;
  const ExecResult split = run_failing("return doc:split('')");
  EXPECT_TRUE(split.error);
  EXPECT_NE(split.output.find("must not be empty"), std::string::npos) << split.output;
}

TEST_F(LuaDocument, LinesWithCrLfAndNoTrailingNewline) {
  m_text = "one\r\ntwo\n\nfour";
  EXPECT_EQ(run("return doc:line_count()"), "4\n");
  EXPECT_EQ(run("return doc:line(1), doc:line(2), '[' .. doc:line(3) .. ']', doc:line(4)"),
            "one\ttwo\t[]\tfour\n");
  EXPECT_EQ(run("return doc:line(0), doc:line(5)"), "nil\tnil\n");
  EXPECT_EQ(run("return table.concat(doc:lines(1, 2), '|')"), "one|two\n");
  EXPECT_EQ(run("return table.concat(doc:lines(3, 100), '|')"), "|four\n");
  EXPECT_EQ(run("return #doc:lines(5, 6), #doc:lines(3, 2)"), "0\t0\n");
  EXPECT_EQ(run("return table.concat(doc:lines(-5, 1), '|')"), "one\n");
}

TEST_F(LuaDocument, LineOfAPosition) {
  m_text = "one\r\ntwo\n\nfour";
  // Bytes: o=1 .. \r=4 \n=5, t=6 .. \n=9, \n=10, f=11 .. r=14.
  EXPECT_EQ(run("return doc:line_of(1), doc:line_of(5), doc:line_of(6), doc:line_of(10), "
                "doc:line_of(14)"),
            "1\t1\t2\t3\t4\n");
  EXPECT_EQ(run("return doc:line_of(0), doc:line_of(15)"), "nil\tnil\n");
}

TEST_F(LuaDocument, SplitKeepsEmptyPieces) {
  m_text = "a,,b,";
  EXPECT_EQ(run("local p = doc:split(',') return #p, table.concat(p, '|')"), "4\ta||b|\n");
  EXPECT_EQ(run("local p = doc:split(',', 2) return #p, p[1], p[2]"), "2\ta\t,b,\n");
  EXPECT_EQ(run("local p = doc:split(';') return #p, p[1]"), "1\ta,,b,\n");
}

TEST_F(LuaDocument, SplitOnAMultiByteSeparator) {
  m_text = "x--y----z";
  EXPECT_EQ(run("return table.concat(doc:split('--'), '|')"), "x|y||z\n");
}

TEST_F(LuaDocument, EmptyDocument) {
  EXPECT_EQ(run("return #doc, doc:line_count(), #doc:find('a'), #doc:split(','), doc:line(1)"),
            "0\t0\t0\t1\tnil\n");
  EXPECT_EQ(run("return '[' .. doc:slice(1, -1) .. ']'"), "[]\n");
}

TEST_F(LuaDocument, IsReadOnly) {
  m_text = "text";
  const ExecResult set_field = run_failing("doc.x = 1");
  EXPECT_TRUE(set_field.error);
  EXPECT_NE(set_field.output.find("`doc` is read-only"), std::string::npos) << set_field.output;

  const ExecResult set_meta = run_failing("setmetatable(doc, {})");
  EXPECT_TRUE(set_meta.error);
  EXPECT_NE(set_meta.output.find("`doc` is read-only"), std::string::npos) << set_meta.output;

  EXPECT_EQ(run("return getmetatable(doc)"), "the document is read-only\n");
  EXPECT_EQ(run("return doc.x, doc:slice(1, 2)"), "nil\tte\n");
}

TEST_F(LuaDocument, MethodsCheckTheirSelf) {
  m_text = "text";
  const ExecResult result = run_failing("return doc.len({})");
  EXPECT_TRUE(result.error);
  EXPECT_NE(result.output.find("document expected"), std::string::npos) << result.output;
}

} // namespace
} // namespace ralph::rlm
