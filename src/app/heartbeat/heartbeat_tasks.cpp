#include "app/heartbeat/heartbeat_tasks.h"

#include "ralph/core/text.h"
#include "ralph/core/time.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace ralph::app {

namespace fs = std::filesystem;

Result<std::string> read_heartbeat_tasks(const fs::path& workspace) {
  const fs::path path = workspace / "HEARTBEAT.md";
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) {
    text << in.rdbuf();
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return fail(ErrorKind::usage, fmt::format("{} is a folder, not the tasks file", path.string()));
  }
  if (!in) {
    return fail(ErrorKind::usage,
                fmt::format("{}: no such file; write the tasks to check on each tick there",
                            path.string()));
  }
  if (trim(text.str()).empty()) {
    return fail(
        ErrorKind::usage,
        fmt::format("{} is empty; write the tasks to check on each tick there", path.string()));
  }
  return text.str();
}

// After OpenClaw's heartbeat prompt. The tasks are in it so the agent need not read the file.
std::string heartbeat_goal(std::string_view tasks, std::size_t max_bytes,
                           std::chrono::system_clock::time_point now) {
  const std::string_view shown = utf8_prefix(tasks, max_bytes);
  std::string goal = fmt::format(
      "Heartbeat: a periodic check-in at {} UTC. HEARTBEAT.md in the workspace lists what to "
      "check and do; it is quoted below, so you need not read it.\n"
      "Do the tasks in it that are due now, following it strictly. Do not invent tasks it does "
      "not list and do not redo work an earlier check-in already did unless it says so. When you "
      "acted, say briefly what you did. When nothing needs attention, answer exactly HEARTBEAT_OK "
      "and nothing else.\n\n## HEARTBEAT.md\n{}",
      iso8601_utc(now), shown);
  if (shown.size() < tasks.size()) {
    goal += fmt::format("\n[... {} of {} bytes shown; read the file for the rest]", shown.size(),
                        tasks.size());
  }
  return goal;
}

// A lazy HEARTBEAT_OK can only be caught by a judge that reads HEARTBEAT.md.
Result<void> check_heartbeat_judge(const Config& config) {
  const LoopSettings& loop = config.loop;
  const bool verifying =
      loop.trigger.verify_heartbeat || loop.trigger.mode == TriggerMode::heartbeat;
  if (verifying && config.judge.model.empty() && !config.judge.on_agent_model) {
    return fail(ErrorKind::config,
                "heartbeat verification needs a judge: pass --judge PROVIDER/MODEL (or set "
                "judge.model), or turn it off with --no-verify-heartbeat");
  }
  return {};
}

} // namespace ralph::app
