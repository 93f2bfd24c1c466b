#include "ralph/notify/webhook.h"

#include "ralph/notify/signature.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::notify {
namespace {

// An error's text with every URL in it cut to its scheme, host and port (libcurl's messages and
// the transport's name the URL, path included): the path and query of a webhook can be its token.
std::string without_url_paths(std::string message) {
  for (auto at = message.find("://"); at != std::string::npos; at = message.find("://", at + 3)) {
    const auto authority = at + 3;
    const auto end = message.find_first_of(" \t\n", authority);
    const auto path = message.find_first_of("/?#", authority);
    if (path == std::string::npos || (end != std::string::npos && path > end)) {
      continue;
    }
    auto cut = end == std::string::npos ? message.size() : end;
    if (cut > path && message[cut - 1] == ':') {
      --cut; // "POST https://host/path: Couldn't connect"
    }
    message.replace(path, cut - path, "/…");
  }
  return message;
}

} // namespace

http::RetryPolicy webhook_retry_policy() {
  return http::RetryPolicy{.max_attempts = 4,
                           .base_delay = std::chrono::seconds(1),
                           .max_delay = std::chrono::seconds(8),
                           .max_retry_after = std::chrono::minutes(1)};
}

http::Request webhook_request(const NotifyTarget& target, const Notification& notification,
                              const std::string& secret) {
  http::Request request;
  request.method = "POST";
  request.url = target.url;
  request.body = notification.body;
  request.connect_timeout =
      std::min<std::chrono::milliseconds>(target.timeout, std::chrono::seconds(10));
  request.idle_timeout = target.timeout;
  request.total_timeout = target.timeout;
  request.headers = {{"Content-Type", "application/json"},
                     {"User-Agent", "ralph/" RALPH_VERSION},
                     {"X-Ralph-Event", to_string(notification.event)},
                     {"X-Ralph-Delivery", notification.id},
                     {"X-Ralph-Timestamp", std::to_string(notification.timestamp)}};
  if (!secret.empty()) {
    request.headers.emplace_back(
        "X-Ralph-Signature-256",
        signature_header(secret, notification.timestamp, notification.body));
  }
  request.headers.insert(request.headers.end(), target.headers.begin(), target.headers.end());
  return request;
}

Result<void> deliver_webhook(http::Transport& transport, Clock& clock, const NotifyTarget& target,
                             const Notification& notification, const std::string& secret,
                             const CancelToken& cancel, const http::RetryPolicy& policy) {
  const http::Request request = webhook_request(target, notification, secret);
  // 409 is retried for model servers (a conflict that clears); for a webhook it is an answer.
  const http::RetryHooks hooks{
      .non_retryable = [](const http::Response& response) { return response.status == 409; },
      .give_up = {},
      .on_retry = {}};
  const auto response = http::send_with_retry(
      transport, request, [](std::string_view) { return true; }, cancel, policy, clock, hooks);
  if (!response) {
    Error error = response.error();
    error.message = without_url_paths(std::move(error.message));
    return tl::unexpected(std::move(error));
  }
  if (response->status < 200 || response->status > 299) {
    Error error{.kind = ErrorKind::network,
                .message = fmt::format("HTTP {}", response->status),
                .http_status = response->status};
    return tl::unexpected(std::move(error));
  }
  return {};
}

} // namespace ralph::notify
