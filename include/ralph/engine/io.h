#pragma once

#include "ralph/core/clock.h"
#include "ralph/core/waiter.h"
#include "ralph/http/transport.h"
#include "ralph/tools/process_runner.h"

#include <memory>

namespace ralph::engine {

// Everything a session reaches the outside through while it waits: time (backoff, budgets),
// child processes (tools, verifier commands, agent CLIs) and HTTP (model providers). A session
// takes all three from one Io, so hosting it on an engine changes how it waits, not what it does.
class Io {
public:
  virtual ~Io() = default;
  virtual Clock& clock() = 0;
  virtual tools::ProcessRunner& runner() = 0;
  // Waits on file descriptors (an MCP server's pipes): a fiber parks, a thread blocks.
  virtual Waiter& waiter() = 0;
  // A transport for one provider: used by one thread (or fiber) at a time.
  virtual std::unique_ptr<http::Transport> make_transport() = 0;
};

// One session per thread: every wait blocks the calling thread (libcurl's own loop per transport,
// poll(2) for children, sleeps for backoff). What `ralph run` uses.
class BlockingIo final : public Io {
public:
  Clock& clock() override { return m_clock; }
  tools::ProcessRunner& runner() override { return m_runner; }
  Waiter& waiter() override { return m_waiter; }
  std::unique_ptr<http::Transport> make_transport() override;

private:
  SystemClock m_clock;
  BlockingWaiter m_waiter;
  tools::PosixProcessRunner m_runner;
};

} // namespace ralph::engine
