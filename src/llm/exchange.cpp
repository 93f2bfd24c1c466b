#include "llm/exchange.h"

#include "llm/provider_error.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::llm {
namespace {

using std::chrono::milliseconds;

// The wait before restarting a stream that failed on try `attempt`: the server's hint when it
// gave one, else the same exponential backoff with jitter as http::send_with_retry.
std::optional<milliseconds> restart_delay(const http::RetryPolicy& policy, const Error& error,
                                          int attempt) {
  if (error.retry_after.count() > 0) {
    if (error.retry_after > policy.max_retry_after) {
      return std::nullopt;
    }
    return error.retry_after;
  }
  return http::backoff_delay(policy, attempt);
}

Error finalize(Error error, const ExchangeContext& context) {
  add_provider_prefix(error, context.provider);
  redact(error, context.secret);
  return error;
}

// What one send_with_retry call amounted to.
Result<ChatResponse> settle(const ExchangeContext& context, Result<http::Response> result,
                            ResponseReader& reader) {
  if (reader.failure()) {
    return fail(*reader.failure()); // the transport only saw the reader stop it
  }
  TRY_ASSIGN(const http::Response received, std::move(result));
  if (received.status < 200 || received.status >= 300) {
    return fail(status_error(context.provider, received, context.secret));
  }
  TRY_ASSIGN(ChatResponse response, reader.finish(received));
  std::string_view request_id = received.header("x-request-id");
  if (request_id.empty()) {
    request_id = received.header("request-id");
  }
  response.request_id = request_id;
  return response;
}

} // namespace

Result<ChatResponse> exchange(const ExchangeContext& context, const http::Request& request,
                              ResponseReader& reader, StreamObserver* observer,
                              const CancelToken& cancel) {
  const int max_attempts = std::max(1, context.policy.max_attempts);
  http::BodySink sink;
  if (reader.streaming()) {
    sink = [&reader](std::string_view bytes) { return reader.feed(bytes); };
  }
  int used = 0; // tries made before the current send_with_retry call
  for (;;) {
    reader.begin();
    http::RetryPolicy policy = context.policy;
    policy.max_attempts = max_attempts - used;
    // send_with_retry reports the bare status; the parsed body says more (and decides quota).
    std::optional<Error> parsed;
    int tries = 1;
    http::RetryHooks hooks;
    hooks.non_retryable = [&](const http::Response& response) {
      parsed = status_error(context.provider, response, context.secret);
      return !parsed->retryable;
    };
    hooks.give_up = [&](const Error& error) {
      return error.refused && !context.refused_hint.empty();
    };
    hooks.on_retry = [&](const Error& cause, int attempt, milliseconds delay) {
      tries = attempt + 1;
      Error error = parsed && parsed->http_status == cause.http_status ? *parsed : cause;
      parsed.reset();
      if (observer != nullptr) {
        observer->on_retry(finalize(std::move(error), context), used + attempt, delay);
      }
    };
    auto outcome = settle(context,
                          http::send_with_retry(context.transport, request, sink, cancel, policy,
                                                context.clock, hooks),
                          reader);
    used += tries;
    if (outcome) {
      return outcome;
    }
    Error error = finalize(std::move(outcome.error()), context);
    if (error.refused && !context.refused_hint.empty()) {
      error.message += fmt::format("; {}", context.refused_hint);
      error.retryable = false;
    }
    // Only the readers say `parse`: a body that arrived garbled or cut short (by the server or a
    // proxy) is transient far more often than not, so it is retried like a dropped connection.
    if (error.kind == ErrorKind::parse) {
      error.retryable = true;
    }
    if (cancel.cancelled()) {
      error.kind = ErrorKind::cancelled;
      error.retryable = false;
    }
    if (!error.retryable || used >= max_attempts) {
      return fail(std::move(error));
    }
    const auto delay = restart_delay(context.policy, error, used);
    if (!delay) {
      return fail(std::move(error));
    }
    if (observer != nullptr) {
      observer->on_retry(error, used, *delay);
    }
    if (!context.clock.sleep_for(*delay, cancel)) {
      Error cancelled;
      cancelled.kind = ErrorKind::cancelled;
      cancelled.message = "cancelled while waiting to retry";
      return fail(finalize(std::move(cancelled), context));
    }
  }
}

} // namespace ralph::llm
