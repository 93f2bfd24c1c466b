#pragma once

#include "ralph/core/clock.h"
#include "ralph/http/transport.h"

#include <chrono>
#include <functional>
#include <optional>

namespace ralph::http {

// Exponential backoff with jitter, as the official SDKs do it.
struct RetryPolicy {
  int max_attempts = 3; // total tries, the first included
  std::chrono::milliseconds base_delay{500};
  std::chrono::milliseconds max_delay{8000};
  // A server hint (retry-after, retry-after-ms) is honoured up to this; a larger hint ends
  // retrying.
  std::chrono::milliseconds max_retry_after{60'000};
};

// base_delay * 2^(attempt-1), capped at max_delay, times a random factor in (0.75, 1], as the
// official SDKs wait before retry `attempt` (1-based). Thread-safe.
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt);

// 408, 409, 429 and every 5xx (529 included).
bool is_retryable_status(int status);

// The server's wait hint: `retry-after-ms`, else `retry-after` as seconds (fractions allowed) or an
// HTTP-date. nullopt when absent or unparsable.
std::optional<std::chrono::milliseconds> retry_after(const Response& response);
// The same, with the wall-clock time an HTTP-date is measured against (for tests).
std::optional<std::chrono::milliseconds> retry_after(const Response& response,
                                                     std::chrono::system_clock::time_point now);

// The decision for one response, ignoring attempts left: `x-should-retry: true|false` when
// present on a status >= 400, else is_retryable_status.
bool should_retry(const Response& response);

struct RetryHooks {
  // Return true to refuse retrying a response the status alone would retry (e.g. 429
  // insufficient_quota).
  std::function<bool(const Response&)> non_retryable;
  // Return true to refuse retrying a transport error marked retryable (e.g. a refused connection
  // to a local server that is not running).
  std::function<bool(const Error&)> give_up;
  // Told before each wait: the error that caused it, the attempt that failed (1-based), the delay.
  std::function<void(const Error&, int, std::chrono::milliseconds)> on_retry;
};

// Sends `request`, retrying transport errors marked retryable and retryable statuses (or as the
// `x-should-retry` header says; `hooks.non_retryable` vetoes either). A request whose body
// already reached `sink` is never retried. The wait is the server's hint when 0 < hint <=
// policy.max_retry_after; a larger hint stops retrying (the response is returned as is);
// otherwise base_delay * 2^(attempt-1), capped at max_delay, times a random factor in (0.75, 1].
// Waits go through `clock`; a cancel during one returns ErrorKind::cancelled. When retries run
// out, returns the last response (status >= 400) or the last transport error.
Result<Response> send_with_retry(Transport& transport, const Request& request, const BodySink& sink,
                                 const CancelToken& cancel, const RetryPolicy& policy, Clock& clock,
                                 const RetryHooks& hooks = {});

} // namespace ralph::http
