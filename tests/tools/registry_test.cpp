#include "support/temp_dir.h"

#include "ralph/core/json.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/tools/registry.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

namespace ralph::tools {
namespace {

using ralph::testing::TempDir;

class NamedTool final : public Tool {
public:
  NamedTool(std::string name, std::string answer) : m_answer(std::move(answer)) {
    m_spec.name = std::move(name);
  }
  const ToolSpec& spec() const override { return m_spec; }
  ToolResult run(std::string_view arguments, const ToolContext&) override {
    if (m_answer == "throw") {
      throw std::runtime_error("boom");
    }
    ToolResult result;
    result.content = m_answer + ":" + std::string(arguments);
    return result;
  }

private:
  ToolSpec m_spec;
  std::string m_answer;
};

ToolCall call_of(std::string name, std::string arguments = "{}") {
  return ToolCall{"call-1", std::move(name), std::move(arguments)};
}

TEST(Registry, RunsTheToolCalledByName) {
  Registry registry;
  registry.add(std::make_unique<NamedTool>("a", "from-a"));
  registry.add(std::make_unique<NamedTool>("b", "from-b"));
  const ToolResult result = registry.run(call_of("b", "{\"x\":1}"), {});
  EXPECT_FALSE(result.is_error);
  EXPECT_EQ(result.content, "from-b:{\"x\":1}");
}

TEST(Registry, UnknownToolIsAnErrorNamingTheAvailableTools) {
  Registry registry;
  registry.add(std::make_unique<NamedTool>("read_file", ""));
  registry.add(std::make_unique<NamedTool>("shell", ""));
  const ToolResult result = registry.run(call_of("bash"), {});
  EXPECT_TRUE(result.is_error);
  EXPECT_EQ(result.content, "unknown tool `bash`; available tools: read_file, shell");
}

TEST(Registry, AddingASameNamedToolReplacesItInPlace) {
  Registry registry;
  registry.add(std::make_unique<NamedTool>("a", "old"));
  registry.add(std::make_unique<NamedTool>("b", ""));
  registry.add(std::make_unique<NamedTool>("a", "new"));
  const auto specs = registry.specs();
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].name, "a");
  EXPECT_EQ(specs[1].name, "b");
  EXPECT_EQ(registry.run(call_of("a"), {}).content, "new:{}");
  EXPECT_EQ(registry.find("a"), registry.find("a"));
  EXPECT_EQ(registry.find("missing"), nullptr);
}

TEST(Registry, ExceptionFromAToolBecomesAnErrorResult) {
  Registry registry;
  registry.add(std::make_unique<NamedTool>("fragile", "throw"));
  const ToolResult result = registry.run(call_of("fragile"), {});
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.content.find("boom"), std::string::npos);
}

TEST(BuiltinRegistry, OffersTheSixToolsWithObjectSchemas) {
  PosixProcessRunner runner;
  const Registry registry = make_builtin_registry({}, runner);
  std::vector<std::string> names;
  for (const ToolSpec& spec : registry.specs()) {
    names.push_back(spec.name);
    EXPECT_FALSE(spec.description.empty()) << spec.name;
    const auto schema = parse_json(spec.parameters, spec.name);
    ASSERT_TRUE(schema.has_value()) << spec.name << ": " << spec.parameters;
    EXPECT_EQ(schema->at("type"), "object") << spec.name;
    for (const auto& required : schema->value("required", nlohmann::json::array())) {
      EXPECT_TRUE(schema->at("properties").contains(required)) << spec.name;
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"shell", "read_file", "write_file", "edit_file",
                                             "list_dir", "search_files"}));
}

TEST(BuiltinRegistry, RunsToolsInTheContextWorkspace) {
  TempDir dir;
  PosixProcessRunner runner;
  const Registry registry = make_builtin_registry({}, runner);
  ToolContext context;
  context.workspace = dir.path();
  const ToolResult written =
      registry.run(call_of("write_file", R"({"path":"a.txt","content":"hi"})"), context);
  EXPECT_FALSE(written.is_error) << written.content;
  EXPECT_EQ(registry.run(call_of("shell", R"({"command":"cat a.txt"})"), context).content,
            "hi\nexit code: 0");
}

TEST(BuiltinTools, OnlyTheReadingToolsSayTheyAreReadOnly) {
  ralph::testing::TempDir ws;
  ws.write("a.txt", "one\n");
  PosixProcessRunner runner;
  Registry registry = make_builtin_registry(ToolSettings{}, runner);
  const auto run = [&](std::string_view name, std::string_view json) {
    ToolContext context;
    context.workspace = ws.path();
    return registry.run(ToolCall{"1", std::string(name), std::string(json)}, context);
  };
  EXPECT_TRUE(run("read_file", R"({"path":"a.txt"})").read_only);
  EXPECT_TRUE(run("read_file", R"({"path":"missing.txt"})").read_only) << "errors too";
  EXPECT_TRUE(run("list_dir", R"({"path":"."})").read_only);
  EXPECT_TRUE(run("search_files", R"({"pattern":"one"})").read_only);
  EXPECT_FALSE(run("shell", R"({"command":"cat a.txt"})").read_only);
  EXPECT_FALSE(run("write_file", R"({"path":"b.txt","content":"x"})").read_only);
  EXPECT_FALSE(run("edit_file", R"({"path":"a.txt","old_text":"one","new_text":"two"})").read_only);
}

} // namespace
} // namespace ralph::tools
