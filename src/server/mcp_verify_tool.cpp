#include "server/mcp_tools.h"

#include "ralph/engine/io.h"
#include "ralph/session/verify_answer.h"
#include "ralph/verify/json_schema.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <mutex>

namespace ralph::server {
namespace {

using nlohmann::json;

constexpr const char* k_input_schema = R"json({
  "type": "object",
  "properties": {
    "verify_cmd": {
      "description": "Shell commands to run instead of the workspace's configured [verify] commands; each passes when it exits 0",
      "type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
    "answer": {"description": "The answer to check (what checks and the judge read)", "type": "string"},
    "goal": {"description": "What the answer was for (the judge reads it)", "type": "string"}
  },
  "additionalProperties": false
})json";

constexpr const char* k_output_schema = R"json({
  "type": "object",
  "properties": {
    "passed": {"type": "boolean"},
    "verified": {"type": "boolean"},
    "feedback": {"type": "string"},
    "verdicts": {"type": "array", "items": {"type": "object", "properties": {
      "verifier": {"type": "string"},
      "kind": {"type": "string"},
      "result": {"enum": ["pass", "fail", "error"]},
      "category": {"type": "string"},
      "feedback": {"type": "string"},
      "exit_code": {"type": ["integer", "null"]},
      "output": {"type": "string"},
      "duration_ms": {"type": "integer"},
      "tests": {"type": ["object", "null"]}
    }, "required": ["verifier", "kind", "result"]}}
  },
  "required": ["passed", "verified", "verdicts"]
})json";

json tests_json(const std::optional<verify::TestSummary>& tests) {
  if (!tests) {
    return nullptr;
  }
  json out = {{"runner", tests->runner}, {"failed", tests->failed}, {"failing", tests->failing}};
  out["passed"] = tests->passed ? json(*tests->passed) : json(nullptr);
  out["total"] = tests->total ? json(*tests->total) : json(nullptr);
  return out;
}

json verdict_json(const verify::Verdict& verdict) {
  json out = {
      {"verifier", verdict.verifier},        {"kind", to_string(verdict.kind)},
      {"result", to_string(verdict.result)}, {"category", std::string(verdict.category.name())},
      {"feedback", verdict.feedback},        {"duration_ms", verdict.duration_ms},
      {"tests", tests_json(verdict.tests)}};
  if (verdict.evidence) {
    out["exit_code"] =
        verdict.evidence->exit_code ? json(*verdict.evidence->exit_code) : json(nullptr);
    // The failing lines and the tail, within the configured budget, as the agent would see them.
    out["output"] = verdict.evidence->excerpt;
  }
  return out;
}

class VerifyTool final : public mcp::ServerTool {
public:
  VerifyTool(const McpToolsContext& context, verify::JsonSchema schema)
      : m_runtime(context.runtime), m_config(context.config), m_workspace(context.workspace),
        m_schema(std::move(schema)) {
    m_spec = {.name = "verify",
              .title = "Verify the workspace",
              .description =
                  "Run the workspace's configured verifiers (ralph's [verify] commands, checks, "
                  "judge), or the given verify_cmd commands, on the workspace as it is now; "
                  "returns each verdict (pass, fail or error) with the failing lines and test "
                  "counts, and the feedback to act on when it failed.",
              .input_schema = k_input_schema,
              .output_schema = k_output_schema,
              .read_only = false, // the commands it runs may write (build outputs)
              .idempotent = true,
              .runs_anything = true};
  }

  const mcp::ServerToolSpec& spec() const override { return m_spec; }

  Result<mcp::ToolOutcome> call(const json& arguments,
                                const mcp::ToolCallContext& context) override {
    const std::vector<std::string> errors = m_schema.validate(arguments, 5);
    if (!errors.empty()) {
      return fail(ErrorKind::usage, fmt::format("verify: {}", fmt::join(errors, "; ")));
    }
    Config config = m_config;
    if (arguments.contains("verify_cmd")) {
      config.verify.commands = arguments["verify_cmd"].get<std::vector<std::string>>();
    }
    engine::BlockingIo io;
    auto verifier =
        session::AnswerVerifier::prepare(m_runtime, config, m_workspace, io, std::nullopt);
    if (!verifier) {
      return mcp::ToolOutcome{.text = "verify: " + verifier.error().message, .is_error = true};
    }
    // Progress per verifier: how many have finished of how many, and the last one's verdict.
    const auto total = static_cast<double>((*verifier)->verifier_count());
    context.progress({.progress = 0, .total = total, .message = "running the verifiers"});
    std::atomic<int> finished{0};
    std::mutex reporting; // verdicts come from the verifiers' threads, one report at a time
    const auto on_verdict = [&](const verify::Verdict& verdict) {
      const std::lock_guard lock(reporting);
      context.progress(
          {.progress = static_cast<double>(++finished),
           .total = total,
           .message = fmt::format("{}: {}", verdict.verifier, to_string(verdict.result))});
    };
    const loop::AnswerCheck check =
        (*verifier)->check({.goal = arguments.value("goal", std::string()),
                            .answer = arguments.value("answer", std::string()),
                            .iteration = 0,
                            .on_verdict = on_verdict},
                           context.cancel);
    const auto& verdicts = check.attempt.verdicts;
    json list = json::array();
    std::string lines;
    for (const verify::Verdict& verdict : verdicts) {
      list.push_back(verdict_json(verdict));
      lines += fmt::format("\n- {}: {}", verdict.verifier, to_string(verdict.result));
    }
    const bool passed = check.attempt.passed;
    json structured = {{"passed", passed},
                       {"verified", check.verified},
                       {"feedback", check.feedback},
                       {"verdicts", std::move(list)}};
    if (context.cancel.cancelled()) {
      return mcp::ToolOutcome{
          .structured = structured.dump(), .text = "verify: cancelled" + lines, .is_error = true};
    }
    std::string text = fmt::format("verify: {} ({} verdicts){}", passed ? "PASSED" : "FAILED",
                                   verdicts.size(), lines);
    if (!passed && !check.feedback.empty()) {
      text += "\n\n" + check.feedback;
    }
    return mcp::ToolOutcome{.structured =
                                structured.dump(-1, ' ', false, json::error_handler_t::replace),
                            .text = std::move(text)};
  }

private:
  session::Runtime& m_runtime;
  Config m_config;
  std::filesystem::path m_workspace;
  verify::JsonSchema m_schema;
  mcp::ServerToolSpec m_spec;
};

} // namespace

std::unique_ptr<mcp::ServerTool> make_verify_tool(const McpToolsContext& context) {
  auto schema = verify::JsonSchema::compile(k_input_schema);
  if (!schema) {
    throw std::logic_error("verify tool's input schema: " + schema.error().message);
  }
  return std::make_unique<VerifyTool>(context, std::move(*schema));
}

} // namespace ralph::server
