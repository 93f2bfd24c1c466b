#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/error.h"
#include "ralph/http/transport.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <poll.h>

namespace ralph::http {

// Many HTTP transfers driven from one thread: one libcurl multi handle, whose connection cache
// every transfer shares (keep-alive, and HTTP/2 multiplexing where a server offers it). Nothing
// blocks but run_once(), which waits for the network, for the caller's own file descriptors and
// for a wakeup from another thread, then moves every transfer on and reports those that ended.
// Cancel tokens and idle timeouts are looked at every 50 ms, as CurlTransport does; errors read
// as CurlTransport's. Not thread-safe, except wakeup().
class TransferLoop {
public:
  // Called once per transfer, from within run_once(), with what CurlTransport::send would return.
  using Done = std::function<void(Result<Response> result)>;

  TransferLoop();
  ~TransferLoop(); // ends unfinished transfers without calling their Done
  TransferLoop(const TransferLoop&) = delete;
  TransferLoop& operator=(const TransferLoop&) = delete;

  // Starts `request`. Its 2xx body goes to `sink` as it arrives, from within run_once();
  // `request` and `sink` must stay alive until `done` has run. An error means it did not start
  // (and `done` will not run).
  Result<void> start(const Request& request, const BodySink& sink, const CancelToken& cancel,
                     Done done);

  // Waits up to `timeout` for network activity, for one of `fds` (their `revents` are set) or
  // for wakeup(); then moves the transfers on and runs the Done of each that ended.
  void run_once(pollfd* fds, std::size_t count, std::chrono::milliseconds timeout);

  // Ends the current or next wait of run_once() early. Any thread.
  void wakeup();

  // Transfers started and not yet done.
  std::size_t active() const;

private:
  struct State;
  std::unique_ptr<State> m_state;
};

} // namespace ralph::http
