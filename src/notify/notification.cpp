#include "ralph/notify/notification.h"

#include "ralph/core/ids.h"

#include <fmt/format.h>

namespace ralph::notify {
namespace {

// scheme://host[:port], without user-info, path, query or fragment.
std::string url_origin(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    return "webhook";
  }
  const auto authority = scheme_end + 3;
  const auto end = url.find_first_of("/?#", authority);
  std::string host = url.substr(authority, end == std::string::npos ? end : end - authority);
  if (const auto at = host.rfind('@'); at != std::string::npos) {
    host.erase(0, at + 1);
  }
  const bool more = end != std::string::npos && end + 1 < url.size();
  return fmt::format("{}://{}{}", url.substr(0, scheme_end), host, more ? "/…" : "");
}

} // namespace

Notification make_notification(NotifyEvent event, std::string body, std::int64_t timestamp,
                               std::string about) {
  return Notification{.event = event,
                      .id = new_session_id(),
                      .timestamp = timestamp,
                      .body = std::move(body),
                      .about = std::move(about)};
}

std::string describe_target(const NotifyTarget& target) {
  const std::string what = target.url.empty() ? "command " + target.command.front()
                                              : "webhook " + url_origin(target.url);
  return target.origin.empty() ? what : fmt::format("{} ({})", what, target.origin);
}

} // namespace ralph::notify
