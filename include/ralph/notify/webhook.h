#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/clock.h"
#include "ralph/core/error.h"
#include "ralph/core/settings.h"
#include "ralph/http/retry.h"
#include "ralph/http/transport.h"
#include "ralph/notify/notification.h"

#include <string>

namespace ralph::notify {

// How often a webhook delivery is tried: 4 tries, 1 s, 2 s, 4 s apart (less up to a quarter, at
// random), or as long as a 429's or 503's Retry-After asks, up to a minute.
http::RetryPolicy webhook_retry_policy();

// The request a webhook gets for `notification`: POST of the body with Content-Type, User-Agent,
// X-Ralph-Event, X-Ralph-Delivery, X-Ralph-Timestamp, X-Ralph-Signature-256 when `secret` is not
// empty, and the entry's own headers; each try limited to the entry's timeout.
http::Request webhook_request(const NotifyTarget& target, const Notification& notification,
                              const std::string& secret);

// POSTs `notification` to the target's URL, retrying connection faults, 408, 429 and 5xx with
// exponential backoff and jitter (waits on `clock`, honouring Retry-After); any other status is
// final. A 2xx is delivered; otherwise an error saying why ("HTTP 400", "connection refused"),
// the URL's path and query never in it. A cancel of `cancel` stops it (ErrorKind::cancelled).
Result<void> deliver_webhook(http::Transport& transport, Clock& clock, const NotifyTarget& target,
                             const Notification& notification, const std::string& secret,
                             const CancelToken& cancel,
                             const http::RetryPolicy& policy = webhook_retry_policy());

} // namespace ralph::notify
