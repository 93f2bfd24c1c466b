#include "dialect.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <random>
#include <utility>

namespace fake_agent_cli {
namespace {

using json = nlohmann::ordered_json;

void print_line(std::string_view line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

void print_stderr(std::string_view line) {
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

std::string random_hex(int digits) {
  static std::mt19937_64 generator{std::random_device{}()};
  std::string hex;
  for (int i = 0; i < digits; ++i) {
    hex += "0123456789abcdef"[generator() % 16];
  }
  return hex;
}

std::string uuid() {
  return random_hex(8) + "-" + random_hex(4) + "-4" + random_hex(3) + "-a" + random_hex(3) + "-" +
         random_hex(12);
}

std::int64_t epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string iso_now() {
  const std::int64_t ms = epoch_ms();
  const std::time_t seconds = ms / 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char with_ms[48];
  std::snprintf(with_ms, sizeof with_ms, "%s.%03dZ", text, static_cast<int>(ms % 1000));
  return with_ms;
}

// What a shell printed, stdout then stderr, as the CLIs show a command's output.
std::string combined(const ShellRun& run) {
  return run.out + run.err;
}

std::string trim_newlines(std::string text) {
  while (!text.empty() && text.back() == '\n') {
    text.pop_back();
  }
  return text;
}

std::string single_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return quoted + "'";
}

// claude -p --output-format stream-json --verbose
class Claude final : public Dialect {
public:
  Claude(Output& out, std::string session) : m_out(out), m_session(std::move(session)) {}

  void start(const std::string& cwd, const std::string&) override {
    emit({{"type", "system"},
          {"subtype", "init"},
          {"cwd", cwd},
          {"tools", {"Task", "Bash", "Read", "Edit", "Write"}},
          {"mcp_servers", json::array()},
          {"model", k_model},
          {"permissionMode", "bypassPermissions"},
          {"slash_commands", {"goal"}},
          {"apiKeySource", "ANTHROPIC_API_KEY"},
          {"claude_code_version", "2.1.240"},
          {"output_style", "default"},
          {"agents", json::array()},
          {"skills", json::array()},
          {"plugins", json::array()}});
  }
  void say(const std::string& text) override { assistant({{"type", "text"}, {"text", text}}); }
  void shell(const ShellRun& run) override {
    const std::string id = tool_id();
    assistant({{"type", "tool_use"},
               {"id", id},
               {"name", "Bash"},
               {"input", {{"command", run.command}, {"description", "Run a command"}}}});
    std::string content = trim_newlines(combined(run));
    if (run.exit_code != 0) {
      content =
          "Exit code " + std::to_string(run.exit_code) + (content.empty() ? "" : "\n") + content;
    }
    tool_result(
        id, content, run.exit_code != 0,
        {{"stdout", run.out}, {"stderr", run.err}, {"interrupted", false}, {"isImage", false}});
  }
  void write(const FileWrite& write) override {
    const std::string id = tool_id();
    assistant({{"type", "tool_use"},
               {"id", id},
               {"name", "Write"},
               {"input", {{"file_path", write.path}, {"content", write.content}}}});
    tool_result(id,
                write.existed ? "The file " + write.path + " has been updated successfully."
                              : "File created successfully at: " + write.path,
                false,
                {{"type", write.existed ? "update" : "create"},
                 {"filePath", write.path},
                 {"content", write.content}});
  }
  void notice(const std::string& text) override { print_stderr(text); }
  void tick() override { emit({{"type", "system"}, {"subtype", "status"}, {"status", nullptr}}); }
  void finish_ok(const Ending& ending) override { result(ending, false, ending.final_text); }
  void finish_error(const Ending& ending) override {
    result(ending, true, "API Error: " + ending.error);
  }

private:
  static constexpr const char* k_model = "claude-sonnet-4-5";

  void emit(json line) {
    line["session_id"] = m_session;
    line["uuid"] = uuid();
    m_out.event(line);
  }
  // One assistant line per content block, as the CLI prints them.
  void assistant(json block) {
    json message = {{"id", "msg_" + std::to_string(++m_messages)},
                    {"type", "message"},
                    {"role", "assistant"},
                    {"model", k_model},
                    {"content", json::array({std::move(block)})},
                    {"stop_reason", nullptr},
                    {"usage",
                     {{"input_tokens", 3},
                      {"cache_creation_input_tokens", 0},
                      {"cache_read_input_tokens", 0},
                      {"output_tokens", 9}}}};
    emit({{"type", "assistant"}, {"message", message}, {"parent_tool_use_id", nullptr}});
  }
  void tool_result(const std::string& id, const std::string& content, bool is_error,
                   json tool_use_result) {
    json block = {
        {"type", "tool_result"}, {"tool_use_id", id}, {"content", content}, {"is_error", is_error}};
    emit({{"type", "user"},
          {"message", {{"role", "user"}, {"content", json::array({block})}}},
          {"parent_tool_use_id", nullptr},
          {"tool_use_result", std::move(tool_use_result)}});
  }
  std::string tool_id() { return "toolu_" + std::to_string(++m_tools); }
  void result(const Ending& ending, bool is_error, const std::string& text) {
    const double cost = ending.cost.value_or(0.0);
    // Anthropic's input_tokens leave out what was read from the cache.
    const std::int64_t uncached = ending.tokens.input - ending.tokens.cached;
    json line = {{"type", "result"},
                 {"subtype", "success"},
                 {"is_error", is_error},
                 {"duration_ms", 1200},
                 {"duration_api_ms", 900},
                 {"num_turns", ending.steps + 1},
                 {"result", text},
                 {"stop_reason", is_error ? json(nullptr) : json("end_turn")},
                 {"total_cost_usd", cost},
                 {"usage",
                  {{"input_tokens", uncached},
                   {"cache_creation_input_tokens", 0},
                   {"cache_read_input_tokens", ending.tokens.cached},
                   {"output_tokens", ending.tokens.output}}},
                 {"modelUsage",
                  {{k_model,
                    {{"inputTokens", uncached},
                     {"outputTokens", ending.tokens.output},
                     {"cacheReadInputTokens", ending.tokens.cached},
                     {"cacheCreationInputTokens", 0},
                     {"webSearchRequests", 0},
                     {"costUSD", cost},
                     {"contextWindow", 200000},
                     {"maxOutputTokens", 64000}}}}},
                 {"permission_denials", json::array()},
                 {"terminal_reason", "completed"}};
    if (is_error) {
      line["api_error_status"] = 500;
    }
    emit(std::move(line));
  }

  Output& m_out;
  std::string m_session;
  int m_messages = 0;
  int m_tools = 0;
};

// codex exec --json
class Codex final : public Dialect {
public:
  Codex(Output& out, std::string session) : m_out(out), m_session(std::move(session)) {}

  void start(const std::string&, const std::string&) override {
    m_out.event({{"type", "thread.started"}, {"thread_id", m_session}});
    m_out.event({{"type", "turn.started"}});
  }
  void say(const std::string& text) override {
    completed({{"id", item_id()}, {"type", "agent_message"}, {"text", text}});
  }
  void shell(const ShellRun& run) override {
    json item = {{"id", item_id()},
                 {"type", "command_execution"},
                 {"command", "/bin/bash -lc " + single_quoted(run.command)},
                 {"aggregated_output", ""},
                 {"exit_code", nullptr},
                 {"status", "in_progress"}};
    m_out.event({{"type", "item.started"}, {"item", item}});
    item["aggregated_output"] = combined(run);
    item["exit_code"] = run.exit_code;
    item["status"] = run.exit_code == 0 ? "completed" : "failed";
    completed(std::move(item));
  }
  void write(const FileWrite& write) override {
    completed({{"id", item_id()},
               {"type", "file_change"},
               {"changes", {{{"path", write.path}, {"kind", write.existed ? "update" : "add"}}}},
               {"status", "completed"}});
  }
  void notice(const std::string& text) override {
    m_out.event({{"type", "error"}, {"message", text}});
  }
  void tick() override {
    m_out.event({{"type", "item.updated"},
                 {"item",
                  {{"id", "item_todo"},
                   {"type", "todo_list"},
                   {"items", {{{"text", "keep working"}, {"completed", false}}}}}}});
  }
  void finish_ok(const Ending& ending) override {
    m_out.event({{"type", "turn.completed"},
                 {"usage",
                  {{"input_tokens", ending.tokens.input},
                   {"cached_input_tokens", ending.tokens.cached},
                   {"output_tokens", ending.tokens.output}}}});
  }
  void finish_error(const Ending& ending) override {
    m_out.event({{"type", "error"}, {"message", ending.error}});
    m_out.event({{"type", "turn.failed"}, {"error", {{"message", ending.error}}}});
  }

private:
  void completed(json item) {
    m_out.event({{"type", "item.completed"}, {"item", std::move(item)}});
  }
  std::string item_id() { return "item_" + std::to_string(m_items++); }

  Output& m_out;
  std::string m_session;
  int m_items = 0;
};

// gemini -p -o stream-json
class Gemini final : public Dialect {
public:
  Gemini(Output& out, std::string session) : m_out(out), m_session(std::move(session)) {}

  void start(const std::string&, const std::string& prompt) override {
    emit({{"type", "init"}, {"session_id", m_session}, {"model", k_model}});
    emit({{"type", "message"}, {"role", "user"}, {"content", prompt}});
  }
  void say(const std::string& text) override {
    emit({{"type", "message"}, {"role", "assistant"}, {"content", text}, {"delta", true}});
  }
  // A command that exits non-zero is reported as a failed tool call (the display text carries
  // no exit code, as in the real CLI).
  void shell(const ShellRun& run) override {
    const std::string id = tool_id();
    emit({{"type", "tool_use"},
          {"tool_name", "run_shell_command"},
          {"tool_id", id},
          {"parameters", {{"command", run.command}}}});
    json result = {{"type", "tool_result"},
                   {"tool_id", id},
                   {"status", run.exit_code == 0 ? "success" : "error"},
                   {"output", combined(run)}};
    if (run.exit_code != 0) {
      result["error"] = {{"type", "shell_execute_error"},
                         {"message", "Command exited with code " + std::to_string(run.exit_code)}};
    }
    emit(std::move(result));
  }
  void write(const FileWrite& write) override {
    const std::string id = tool_id();
    emit({{"type", "tool_use"},
          {"tool_name", "write_file"},
          {"tool_id", id},
          {"parameters", {{"file_path", write.path}, {"content", write.content}}}});
    emit({{"type", "tool_result"},
          {"tool_id", id},
          {"status", "success"},
          {"output", (write.existed ? "Successfully overwrote file: "
                                    : "Successfully created and wrote to new file: ") +
                         write.path}});
  }
  void notice(const std::string& text) override {
    emit({{"type", "error"}, {"severity", "warning"}, {"message", text}});
  }
  void tick() override {
    emit({{"type", "message"}, {"role", "assistant"}, {"content", ""}, {"delta", true}});
  }
  void finish_ok(const Ending& ending) override {
    emit({{"type", "result"}, {"status", "success"}, {"stats", stats(ending)}});
  }
  void finish_error(const Ending& ending) override {
    emit({{"type", "result"},
          {"status", "error"},
          {"error", {{"type", "ApiError"}, {"message", ending.error}}},
          {"stats", stats(ending)}});
  }

private:
  static constexpr const char* k_model = "gemini-2.5-pro";

  void emit(json line) {
    line["timestamp"] = iso_now();
    m_out.event(line);
  }
  std::string tool_id() { return "call_" + std::to_string(++m_tools); }
  json stats(const Ending& ending) const {
    const Tokens& t = ending.tokens;
    const json tokens = {{"total_tokens", t.input + t.output},
                         {"input_tokens", t.input},
                         {"output_tokens", t.output},
                         {"cached", t.cached},
                         {"input", t.input - t.cached}};
    json stats = tokens;
    stats["duration_ms"] = 1200;
    stats["tool_calls"] = m_tools;
    stats["models"] = {{k_model, tokens}};
    return stats;
  }

  Output& m_out;
  std::string m_session;
  int m_tools = 0;
};

// goose run --output-format stream-json
class Goose final : public Dialect {
public:
  explicit Goose(Output& out) : m_out(out) {}

  void start(const std::string&, const std::string&) override {}
  void say(const std::string& text) override {
    message("assistant", {{{"type", "text"}, {"text", text}}});
  }
  // The shell's exit code is only in the result text, as with the real developer extension.
  void shell(const ShellRun& run) override {
    std::string text = combined(run);
    if (run.exit_code != 0) {
      text += "Command exited with status " + std::to_string(run.exit_code) + "\n";
    }
    tool("developer__shell", {{"command", run.command}}, text, run.exit_code != 0);
  }
  void write(const FileWrite& write) override {
    tool("developer__text_editor",
         {{"command", "write"}, {"path", write.path}, {"file_text", write.content}},
         "Successfully wrote to " + write.path, false);
  }
  void notice(const std::string& text) override {
    m_out.event(
        {{"type", "notification"}, {"extension_id", "developer"}, {"log", {{"message", text}}}});
  }
  void tick() override {
    m_out.event(
        {{"type", "notification"},
         {"extension_id", "developer"},
         {"progress", {{"progress", ++m_ticks}, {"total", nullptr}, {"message", "working"}}}});
  }
  void finish_ok(const Ending& ending) override { complete(ending); }
  // goose reports the error and still completes (and exits 0).
  void finish_error(const Ending& ending) override {
    m_out.event({{"type", "error"}, {"error", ending.error}});
    complete(ending);
  }

private:
  void message(const char* role, json content) {
    const json id = std::string(role) == "assistant" ? json("msg_" + std::to_string(++m_messages))
                                                     : json(nullptr);
    m_out.event({{"type", "message"},
                 {"message",
                  {{"id", id},
                   {"role", role},
                   {"created", epoch_ms() / 1000},
                   {"content", std::move(content)},
                   {"metadata", {{"userVisible", true}, {"agentVisible", true}}}}}});
  }
  void tool(const char* name, json arguments, const std::string& text, bool is_error) {
    const std::string id = "call_" + std::to_string(++m_tools);
    message("assistant", {{{"type", "toolRequest"},
                           {"id", id},
                           {"toolCall",
                            {{"status", "success"},
                             {"value", {{"name", name}, {"arguments", std::move(arguments)}}}}}}});
    message("user",
            {{{"type", "toolResponse"},
              {"id", id},
              {"toolResult",
               {{"status", "success"},
                {"value",
                 {{"content", {{{"type", "text"}, {"text", text}}}}, {"isError", is_error}}}}}}});
  }
  void complete(const Ending& ending) {
    m_out.event(
        {{"type", "complete"}, {"total_tokens", ending.tokens.input + ending.tokens.output}});
  }

  Output& m_out;
  int m_messages = 0;
  int m_tools = 0;
  int m_ticks = 0;
};

// opencode run --format json, v1 events.
class Opencode final : public Dialect {
public:
  Opencode(Output& out, std::string session) : m_out(out), m_session(std::move(session)) {}

  void start(const std::string&, const std::string&) override { step_start(); }
  void say(const std::string& text) override {
    const std::int64_t now = epoch_ms();
    emit("text", part("text", {{"text", text}, {"time", {{"start", now}, {"end", now}}}}));
  }
  void shell(const ShellRun& run) override {
    const std::string output = combined(run);
    tool("bash", {{"command", run.command}, {"description", "Run a command"}}, output, run.command,
         {{"output", output}, {"exit", run.exit_code}, {"description", "Run a command"}});
  }
  void write(const FileWrite& write) override {
    tool("write", {{"filePath", write.path}, {"content", write.content}}, "", write.path,
         {{"diagnostics", json::object()}, {"filepath", write.path}, {"exists", write.existed}});
  }
  // v1 has no non-fatal error event: an `error` event fails the session.
  void notice(const std::string& text) override { print_stderr(text); }
  void tick() override { step_start(); }
  void finish_ok(const Ending& ending) override {
    const Tokens& t = ending.tokens;
    emit("step_finish", part("step-finish", {{"reason", "stop"},
                                             {"snapshot", k_snapshot},
                                             {"cost", ending.cost.value_or(0.0)},
                                             {"tokens",
                                              {{"total", t.input + t.output},
                                               {"input", t.input - t.cached},
                                               {"output", t.output},
                                               {"reasoning", 0},
                                               {"cache", {{"read", t.cached}, {"write", 0}}}}}}));
    emit("done", json{{"reason", "idle"}, {"rejected", json::array()}});
  }
  void finish_error(const Ending& ending) override {
    emit("error", json{{"error", {{"name", "APIError"}, {"data", {{"message", ending.error}}}}}});
  }

private:
  static constexpr const char* k_snapshot = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

  void emit(const char* type, const json& fields) {
    json line = {{"type", type}, {"timestamp", epoch_ms()}, {"sessionID", m_session}};
    line.update(fields);
    m_out.event(line);
  }
  json part(const char* type, const json& fields) {
    json p = {{"id", "prt_" + std::to_string(++m_parts)},
              {"sessionID", m_session},
              {"messageID", "msg_1"},
              {"type", type}};
    p.update(fields);
    return {{"part", std::move(p)}};
  }
  void step_start() { emit("step_start", part("step-start", {{"snapshot", k_snapshot}})); }
  void tool(const char* name, json input, const std::string& output, const std::string& title,
            json metadata) {
    const std::int64_t now = epoch_ms();
    emit("tool_use", part("tool", {{"tool", name},
                                   {"callID", "call_" + std::to_string(++m_tools)},
                                   {"state",
                                    {{"status", "completed"},
                                     {"input", std::move(input)},
                                     {"output", output},
                                     {"title", title},
                                     {"metadata", std::move(metadata)},
                                     {"time", {{"start", now}, {"end", now}}}}}}));
  }

  Output& m_out;
  std::string m_session;
  int m_parts = 0;
  int m_tools = 0;
};

// aider's --no-pretty plain text: count formatting as aider's format_tokens / format_cost.
std::string aider_tokens(std::int64_t count) {
  char text[32];
  if (count < 1000) {
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(count));
  } else if (count < 10000) {
    std::snprintf(text, sizeof text, "%.1fk", static_cast<double>(count) / 1000.0);
  } else {
    std::snprintf(text, sizeof text, "%.0fk", std::nearbyint(static_cast<double>(count) / 1000.0));
  }
  return text;
}

std::string aider_cost(double value) {
  if (value == 0.0) {
    return "0.00";
  }
  const double magnitude = std::fabs(value);
  const int decimals =
      magnitude >= 0.01 ? 2 : std::max(2, 2 - static_cast<int>(std::log10(magnitude)));
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// aider --message … --no-pretty --no-stream
class Aider final : public Dialect {
public:
  explicit Aider(Output& out) : m_out(out) {}

  void start(const std::string&, const std::string&) override {
    m_out.text("Aider v0.86.3.dev");
    m_out.text("Main model: openai/gpt-4.1 with diff edit format");
    m_out.text("Git repo: none");
    m_out.text("Repo-map: disabled");
  }
  void say(const std::string& text) override { m_out.text(text); }
  void shell(const ShellRun& run) override { m_out.text(trim_newlines(combined(run))); }
  void write(const FileWrite& write) override { m_out.text("Applied edit to " + write.relative); }
  void notice(const std::string& text) override { m_out.text(text); }
  void tick() override { m_out.text("Waiting for openai/gpt-4.1"); }
  void finish_ok(const Ending& ending) override {
    const Tokens& t = ending.tokens;
    std::string line = "Tokens: " + aider_tokens(t.input) + " sent";
    if (t.cached > 0) {
      line += ", " + aider_tokens(t.cached) + " cache hit";
    }
    line += ", " + aider_tokens(t.output) + " received.";
    if (ending.cost) {
      line += " Cost: $" + aider_cost(*ending.cost) + " message, $" + aider_cost(*ending.cost) +
              " session.";
    }
    m_out.text(line);
  }
  void finish_error(const Ending& ending) override {
    m_out.text("litellm.APIError: " + ending.error);
  }

private:
  Output& m_out;
};

} // namespace

void Output::event(const nlohmann::ordered_json& event) {
  text(event.dump(-1, ' ', false, json::error_handler_t::replace));
}

void Output::text(std::string_view line) {
  print_line(line);
  if (m_junk_lines) {
    print_line("[fake-agent-cli debug] after output line " + std::to_string(++m_count));
  }
}

std::string new_session_id(std::string_view format) {
  return format == "opencode" ? "ses_" + random_hex(26) : uuid();
}

std::unique_ptr<Dialect> make_dialect(std::string_view format, Output& out, std::string session) {
  if (format == "claude") {
    return std::make_unique<Claude>(out, std::move(session));
  }
  if (format == "codex") {
    return std::make_unique<Codex>(out, std::move(session));
  }
  if (format == "gemini") {
    return std::make_unique<Gemini>(out, std::move(session));
  }
  if (format == "goose") {
    return std::make_unique<Goose>(out);
  }
  if (format == "opencode") {
    return std::make_unique<Opencode>(out, std::move(session));
  }
  if (format == "aider") {
    return std::make_unique<Aider>(out);
  }
  return nullptr;
}

} // namespace fake_agent_cli
