#pragma once

#include <span>
#include <string_view>

namespace ralph::store::pg {

// The session tables' migrations (track "sessions" of pg::migrate), version i + 1 at index i.
std::span<const std::string_view> session_schema();
// The goal queue's migrations (track "queue").
std::span<const std::string_view> queue_schema();

} // namespace ralph::store::pg
