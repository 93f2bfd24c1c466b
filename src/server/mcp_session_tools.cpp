#include "server/mcp_tools.h"
#include "server/server_parts.h"

#include "ralph/verify/json_schema.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <chrono>

namespace ralph::server {
namespace {

using nlohmann::json;

// The HTTP API's answer as a tool's: its JSON as structured content, an error status as an
// error result carrying the API's message.
mcp::ToolOutcome outcome_of(const HttpResponse& response, const std::string& summary) {
  const json body = json::parse(response.body, nullptr, false);
  if (response.status >= 400) {
    std::string message = body.is_object() && body.contains("error")
                              ? body["error"].value("message", response.body)
                              : response.body;
    return {.text = message, .is_error = true};
  }
  return {.structured = body.is_object() ? response.body : json{{"value", body}}.dump(),
          .text = summary};
}

// "session ID: STATUS (verified)" of a summary, or of a detail's summary.
std::string summary_line(const json& body) {
  const json& session = body.contains("session") ? body["session"] : body;
  return fmt::format("session {}: {}{}", session.value("id", std::string("?")),
                     session.value("status", std::string("?")),
                     session.value("verified", false) ? " (verified)" : "");
}

// A session as GET /api/v1/sessions/ID shows it, without its configuration (every setting: noise
// for a model that asked how the session went), and its answer in the summary.
mcp::ToolOutcome detail_of(ServerParts& parts, const std::string& id) {
  const HttpResponse shown = show_session(parts, {.method = "GET", .params = {id}});
  json body = json::parse(shown.body, nullptr, false);
  if (shown.status >= 400 || !body.is_object()) {
    return outcome_of(shown, "");
  }
  body.erase("config");
  std::string text = summary_line(body);
  const std::string answer = body["session"].value("answer", std::string());
  if (!answer.empty()) {
    text += "\n\n" + answer;
  }
  return {.structured = body.dump(-1, ' ', false, json::error_handler_t::replace),
          .text = std::move(text)};
}

// A tool over the API's routes: its schema checked before `run` sees the arguments.
class RouteTool : public mcp::ServerTool {
public:
  RouteTool(ServerParts& parts, mcp::ServerToolSpec spec)
      : m_parts(parts), m_spec(std::move(spec)) {
    auto schema = verify::JsonSchema::compile(m_spec.input_schema);
    if (!schema) {
      throw std::logic_error(m_spec.name + "'s input schema: " + schema.error().message);
    }
    m_schema = std::make_unique<verify::JsonSchema>(std::move(*schema));
  }
  const mcp::ServerToolSpec& spec() const override { return m_spec; }
  Result<mcp::ToolOutcome> call(const json& arguments,
                                const mcp::ToolCallContext& context) override {
    const std::vector<std::string> errors = m_schema->validate(arguments, 5);
    if (!errors.empty()) {
      return fail(ErrorKind::usage, fmt::format("{}: {}", m_spec.name, fmt::join(errors, "; ")));
    }
    return run(arguments, context);
  }

protected:
  virtual Result<mcp::ToolOutcome> run(const json& arguments,
                                       const mcp::ToolCallContext& context) = 0;
  ServerParts& m_parts;

private:
  mcp::ServerToolSpec m_spec;
  std::unique_ptr<verify::JsonSchema> m_schema;
};

class ListSessionsTool final : public RouteTool {
public:
  explicit ListSessionsTool(ServerParts& parts)
      : RouteTool(parts, {.name = "list_sessions",
                          .title = "List sessions",
                          .description = "The sessions in ralph's store, newest first: id, goal, "
                                         "status, verified, attempts, cost. Filters: status, "
                                         "q (text in the goal or id), limit, cursor.",
                          .input_schema = R"json({"type":"object","properties":{
                            "status":{"type":"string","description":"running, passed, failed, interrupted, ..., or stopped"},
                            "q":{"type":"string"},
                            "limit":{"type":"integer","minimum":1,"maximum":500},
                            "cursor":{"type":"string","description":"next_cursor of the page before"}},
                            "additionalProperties":false})json",
                          .read_only = true,
                          .idempotent = true,
                          .runs_anything = false}) {}

private:
  Result<mcp::ToolOutcome> run(const json& arguments, const mcp::ToolCallContext&) override {
    HttpRequest request{.method = "GET", .path = "/api/v1/sessions"};
    for (const char* key : {"status", "q", "cursor"}) {
      if (arguments.contains(key)) {
        request.query.emplace(key, arguments[key].get<std::string>());
      }
    }
    if (arguments.contains("limit")) {
      request.query.emplace("limit", std::to_string(arguments["limit"].get<int>()));
    }
    const HttpResponse response = list_sessions(m_parts, request);
    const json body = json::parse(response.body, nullptr, false);
    std::string text;
    if (body.is_object() && body.contains("sessions")) {
      text = fmt::format("{} sessions", body["sessions"].size());
      for (const json& session : body["sessions"]) {
        text += "\n- " + summary_line(session) + ": " + session.value("goal", std::string());
      }
    }
    return outcome_of(response, text);
  }
};

class GetSessionTool final : public RouteTool {
public:
  explicit GetSessionTool(ServerParts& parts)
      : RouteTool(parts, {.name = "get_session",
                          .title = "Get a session",
                          .description = "One session: its status, answer, attempts with their "
                                         "verdicts, tool calls and cost.",
                          .input_schema = R"json({"type":"object","properties":{
                            "session_id":{"type":"string","minLength":1}},
                            "required":["session_id"],"additionalProperties":false})json",
                          .read_only = true,
                          .idempotent = true,
                          .runs_anything = false}) {}

private:
  Result<mcp::ToolOutcome> run(const json& arguments, const mcp::ToolCallContext&) override {
    return detail_of(m_parts, arguments["session_id"]);
  }
};

class StopSessionTool final : public RouteTool {
public:
  explicit StopSessionTool(ServerParts& parts)
      : RouteTool(parts, {.name = "stop_session",
                          .title = "Stop a session",
                          .description = "Stops a session this server runs; it ends interrupted "
                                         "and can be resumed.",
                          .input_schema = R"json({"type":"object","properties":{
                            "session_id":{"type":"string","minLength":1}},
                            "required":["session_id"],"additionalProperties":false})json",
                          .destructive = true,
                          .idempotent = true}) {}

private:
  Result<mcp::ToolOutcome> run(const json& arguments, const mcp::ToolCallContext&) override {
    const std::string id = arguments["session_id"];
    const HttpResponse response = act(m_parts, {.method = "POST", .params = {id, "stop"}});
    return outcome_of(response, "stopping session " + id);
  }
};

class RunGoalTool final : public RouteTool {
public:
  explicit RunGoalTool(ServerParts& parts)
      : RouteTool(parts, {.name = "run_goal",
                          .title = "Run a goal",
                          .description =
                              "Starts a ralph session on a goal in the server's workspace and "
                              "returns its id at once; with wait: true, waits for its end "
                              "(progress per attempt and verdict) and returns its final status. "
                              "Other keys are a goals-file line's (max_iterations, verify, "
                              "model, ...). Cancelling a waiting call stops the session.",
                          .input_schema = R"json({"type":"object","properties":{
                            "goal":{"type":"string","minLength":1},
                            "wait":{"type":"boolean"}},
                            "required":["goal"]})json",
                          .open_world = true}) {}

private:
  Result<mcp::ToolOutcome> run(const json& arguments,
                               const mcp::ToolCallContext& context) override {
    json line = arguments;
    const bool wait = line.value("wait", false);
    line.erase("wait");
    line["id"] = "mcp";
    // Subscribed from the bus's position before the start, so no event of the session is missed.
    Replay replay;
    const std::uint64_t before = m_parts.bus.last_id();
    const HttpResponse response = start_session(m_parts, {.method = "POST", .body = line.dump()});
    if (response.status >= 400 || !wait) {
      const json body = json::parse(response.body, nullptr, false);
      return outcome_of(response, body.is_object() && body.contains("id")
                                      ? "started session " + body["id"].get<std::string>()
                                      : std::string());
    }
    const std::string id = json::parse(response.body)["id"];
    auto subscription = m_parts.bus.subscribe({"session:" + id}, before, replay);
    double steps = 0;
    const auto report = [&](const BusEvent& event) {
      if (event.type != "attempt_finished" && event.type != "verdict") {
        return;
      }
      const json data = json::parse(event.data, nullptr, false);
      context.progress(
          {.progress = ++steps,
           .message = event.type == "verdict"
                          ? fmt::format("verdict: {} {}", data.value("verifier", std::string()),
                                        data.value("result", std::string()))
                          : fmt::format("attempt {} finished", data.value("iteration", 0))});
    };
    for (const auto& event : replay.events) {
      report(*event);
    }
    bool stopped = false;
    for (;;) {
      if (context.cancel.cancelled() && !stopped) {
        m_parts.host.stop(id);
        stopped = true;
      }
      const Subscription::Batch batch = subscription->next(std::chrono::milliseconds(200));
      for (const auto& event : batch.events) {
        report(*event);
      }
      if (batch.closed || (batch.events.empty() && !m_parts.host.hosted(id))) {
        break;
      }
    }
    return detail_of(m_parts, id);
  }
};

} // namespace

std::vector<std::unique_ptr<mcp::ServerTool>> make_mcp_tools(const McpToolsContext& context) {
  std::vector<std::unique_ptr<mcp::ServerTool>> tools;
  tools.push_back(make_verify_tool(context));
  if (context.parts != nullptr) {
    tools.push_back(std::make_unique<RunGoalTool>(*context.parts));
    tools.push_back(std::make_unique<GetSessionTool>(*context.parts));
    tools.push_back(std::make_unique<ListSessionsTool>(*context.parts));
    tools.push_back(std::make_unique<StopSessionTool>(*context.parts));
  }
  return tools;
}

} // namespace ralph::server
