#pragma once

#include "ralph/verify/judge_context.h"

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace ralph::verify {

// The rules files the judge reads for one attempt: `configured` in order without HEARTBEAT.md,
// and on heartbeat runs HEARTBEAT.md first (the check-in's tasks are what the run is about).
std::vector<std::string> judge_rules_file_names(std::span<const std::string> configured,
                                                bool heartbeat);

// Reads `names` (relative to `workspace`). Missing files are skipped; a file that exists but
// cannot be read (a directory, no permission) comes back with `error` set. At most `max_bytes`
// of each file are read, cut on a UTF-8 boundary; `size` is the whole file's size.
std::vector<JudgeRulesFile> read_judge_rules(const std::filesystem::path& workspace,
                                             std::span<const std::string> names,
                                             std::size_t max_bytes);

} // namespace ralph::verify
