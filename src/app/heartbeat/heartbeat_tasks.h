#pragma once

#include "ralph/core/config.h"
#include "ralph/core/error.h"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace ralph::app {

// HEARTBEAT.md as it is now (the user edits it between ticks). A usage error naming the path when
// it is missing, a folder or blank.
Result<std::string> read_heartbeat_tasks(const std::filesystem::path& workspace);

// The goal of a tick at calendar time `now`: the tasks quoted (at most `max_bytes` of them), and
// the time, so the agent can tell what is due.
std::string heartbeat_goal(std::string_view tasks, std::size_t max_bytes,
                           std::chrono::system_clock::time_point now);

// A config error when the ticks are to be verified and no judge is configured to do it.
Result<void> check_heartbeat_judge(const Config& config);

} // namespace ralph::app
