#pragma once

#include <string>

namespace ralph {

// A new session id: UTC time to the second plus 48 random bits ("20261123-101500-3f9a2c1b7d04"),
// so ids sort by creation time and never collide across processes.
std::string new_session_id();

} // namespace ralph
