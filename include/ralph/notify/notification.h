#pragma once

#include "ralph/core/settings.h"

#include <cstdint>
#include <string>

namespace ralph::notify {

// One notification as it is delivered: the event JSON (already redacted) and what names the
// delivery. Every try of it (retries, every target) carries the same id and timestamp.
struct Notification {
  NotifyEvent event = NotifyEvent::completed;
  std::string id;             // X-Ralph-Delivery: unique, the same on each retry
  std::int64_t timestamp = 0; // X-Ralph-Timestamp: Unix seconds, the time it was made
  std::string body;           // the event JSON
  std::string about;          // what it is about, for warnings: "session 2026…", "batch b1"
};

// A notification of `event` with `body`, a new id and `timestamp`.
Notification make_notification(NotifyEvent event, std::string body, std::int64_t timestamp,
                               std::string about);

// The target as a warning may name it without a secret: a webhook as its scheme, host and port
// only (a path or query may be a token, as Slack's are), a program as its name; with the
// `[[notify]]` entry's file and line.
std::string describe_target(const NotifyTarget& target);

} // namespace ralph::notify
