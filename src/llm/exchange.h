#pragma once

#include "ralph/core/clock.h"
#include "ralph/http/retry.h"
#include "ralph/http/transport.h"
#include "ralph/llm/provider.h"

#include <optional>
#include <string_view>

namespace ralph::llm {

// Reads the answer of one try. The exchange calls begin() before every try, so a reader that
// saw half a stream starts clean when the request is sent again.
class ResponseReader {
public:
  virtual ~ResponseReader() = default;
  // True: the 2xx body is fed as it arrives; false: finish() reads Response::body.
  virtual bool streaming() const = 0;
  virtual void begin() = 0;
  // A piece of the 2xx body (streaming only). False stops the transfer: the reader failed.
  virtual bool feed(std::string_view bytes) = 0;
  // The failure seen while feeding (an error event, a malformed chunk), if any.
  virtual const std::optional<Error>& failure() const = 0;
  // The try's answer after the transfer ended with the 2xx `response`. A stream that ended
  // without its terminal marker is a retryable `network` error.
  virtual Result<ChatResponse> finish(const http::Response& response) = 0;
};

struct ExchangeContext {
  std::string_view provider; // prefixes every message: "openai: ..."
  std::string_view secret;   // the API key, redacted from every error
  const http::RetryPolicy& policy;
  http::Transport& transport;
  Clock& clock;
  // Added to a refused connection's error, which is then not retried: a local server that is not
  // running needs a person, not five more tries. Empty: refused connections are retried.
  std::string_view refused_hint = {};
};

// Sends `request` and reads the answer with `reader`, within policy.max_attempts tries in all:
// faults before any byte arrived are retried by http::send_with_retry; faults after streaming
// started (dropped connection, idle timeout, truncated stream, a transient error event) restart
// the whole request. Every retry is reported through observer->on_retry first. Errors that are
// not retryable, and retryable ones once the tries run out, are returned.
Result<ChatResponse> exchange(const ExchangeContext& context, const http::Request& request,
                              ResponseReader& reader, StreamObserver* observer,
                              const CancelToken& cancel);

} // namespace ralph::llm
