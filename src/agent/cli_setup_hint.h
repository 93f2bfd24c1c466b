#pragma once

#include <string>
#include <string_view>

namespace ralph::agent {

// What a person does when an agent CLI could not be started: how to install it (the package
// name of the known CLIs), else where to look. `program` is the preset's first word.
std::string install_hint(std::string_view program);

// The fix for a setup failure a CLI explains only on stderr (Claude Code as root without
// IS_SANDBOX=1), or empty when `stderr_text` holds none that ralph knows.
std::string setup_hint(std::string_view stderr_text);

} // namespace ralph::agent
