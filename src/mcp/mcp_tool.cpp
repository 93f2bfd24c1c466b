#include "ralph/mcp/mcp_tool.h"

#include "tools/output_capture.h"

#include <fmt/format.h>

#include <cstdint>
#include <utility>

namespace ralph::mcp {
namespace {

constexpr std::size_t max_tool_name = 64;
constexpr std::size_t hash_digits = 8;

// FNV-1a: stable across runs and builds, unlike std::hash, so a cut name never changes.
std::uint32_t fnv1a(std::string_view text) {
  std::uint32_t hash = 2166136261U;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 16777619U;
  }
  return hash;
}

bool allowed(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

class McpTool final : public tools::Tool {
public:
  McpTool(std::shared_ptr<Client> client, std::string_view server, const RemoteTool& tool,
          std::size_t output_limit, Waiter* waiter,
          std::function<std::unique_ptr<http::Transport>()> make_transport)
      : m_client(std::move(client)), m_tool(tool.name), m_output_limit(output_limit),
        m_waiter(waiter), m_make_transport(std::move(make_transport)) {
    m_spec.name = model_tool_name(server, tool.name);
    const std::string& about = tool.description.empty() ? tool.title : tool.description;
    m_spec.description =
        about.empty() ? fmt::format("The tool `{}` of the MCP server `{}`.", tool.name, server)
                      : about;
    m_spec.parameters = tool.input_schema;
  }

  const ToolSpec& spec() const override { return m_spec; }

  tools::ToolResult run(std::string_view arguments_json,
                        const tools::ToolContext& context) override {
    CallOptions options;
    options.cancel = context.cancel;
    options.waiter = m_waiter;
    options.make_transport = m_make_transport;
    if (context.on_progress) {
      options.on_progress = [&context](const CallProgress& progress) {
        tools::ToolProgressUpdate update;
        update.progress = progress.progress;
        update.total = progress.total;
        update.message = progress.message;
        context.on_progress(update);
      };
    }
    const CallResult call = m_client->call(m_tool, std::string(arguments_json), options);
    tools::ToolResult result;
    result.is_error = call.is_error;
    result.timed_out = call.timed_out;
    result.duration = call.duration;
    if (m_output_limit > 0) {
      tools::OutputCapture capture(m_output_limit);
      capture.append(call.text);
      result.content = capture.text();
      result.truncated = capture.truncated();
    } else {
      result.content = call.text;
    }
    return result;
  }

private:
  std::shared_ptr<Client> m_client;
  std::string m_tool;
  std::size_t m_output_limit;
  Waiter* m_waiter;
  std::function<std::unique_ptr<http::Transport>()> m_make_transport;
  ToolSpec m_spec;
};

} // namespace

std::string model_tool_name(std::string_view server, std::string_view tool) {
  std::string name = fmt::format("mcp__{}__{}", server, tool);
  const std::uint32_t hash = fnv1a(name);
  for (char& c : name) {
    if (!allowed(c)) {
      c = '_';
    }
  }
  if (name.size() <= max_tool_name) {
    return name;
  }
  // The hash is of the name as given, so two names that differ only where they were cut (or
  // sanitised) stay apart.
  name.resize(max_tool_name - hash_digits - 1);
  return fmt::format("{}_{:08x}", name, hash);
}

std::unique_ptr<tools::Tool> make_mcp_tool(std::shared_ptr<Client> client, std::string_view server,
                                           const RemoteTool& tool, std::size_t output_limit) {
  return std::make_unique<McpTool>(std::move(client), server, tool, output_limit, nullptr, nullptr);
}

std::unique_ptr<tools::Tool>
make_mcp_tool(std::shared_ptr<Client> client, std::string_view server, const RemoteTool& tool,
              std::size_t output_limit, Waiter* waiter,
              std::function<std::unique_ptr<http::Transport>()> make_transport) {
  return std::make_unique<McpTool>(std::move(client), server, tool, output_limit, waiter,
                                   std::move(make_transport));
}

} // namespace ralph::mcp
