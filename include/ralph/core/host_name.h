#pragma once

#include <string>

namespace ralph {

// This machine's name (gethostname), which a session's owner_host records: with a store on a
// server, a pid alone does not say which machine's process owns a session.
std::string host_name();

} // namespace ralph
