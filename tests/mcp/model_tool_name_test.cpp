#include "ralph/mcp/mcp_tool.h"

#include <gtest/gtest.h>

#include <string>

namespace ralph::mcp {
namespace {

TEST(ModelToolName, JoinsServerAndToolAndSanitises) {
  EXPECT_EQ(model_tool_name("everything", "get-sum"), "mcp__everything__get-sum");
  EXPECT_EQ(model_tool_name("my server", "a.b/c"), "mcp__my_server__a_b_c");
}

TEST(ModelToolName, CutsLongNamesTo64WithAStableHash) {
  const std::string tool(80, 'x');
  const std::string name = model_tool_name("srv", tool);
  EXPECT_EQ(name.size(), 64U);
  EXPECT_EQ(name.rfind("mcp__srv__xxx", 0), 0U);
  EXPECT_EQ(name, model_tool_name("srv", tool)); // the same every time
  // Two names alike up to the cut stay apart.
  EXPECT_NE(name, model_tool_name("srv", tool + "y"));
  // Names that sanitise alike but differ stay apart once cut.
  EXPECT_NE(model_tool_name("srv", tool + "."), model_tool_name("srv", tool + "_"));
  for (const char c : name) {
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') << name;
  }
}

TEST(ModelToolName, KeepsA64CharacterNameWhole) {
  const std::string tool(64 - std::string("mcp__s__").size(), 't');
  EXPECT_EQ(model_tool_name("s", tool), "mcp__s__" + tool);
}

} // namespace
} // namespace ralph::mcp
