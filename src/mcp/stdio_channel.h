#pragma once

#include "rpc_channel.h"
#include "stdio_process.h"

#include "ralph/core/error.h"
#include "ralph/core/waiter.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace ralph::mcp {

// A server run as a child process speaking newline-delimited JSON-RPC on its stdin and stdout.
// A reader thread routes each response to the request waiting for its id (which waits on an
// eventfd of its own through the Waiter, so a fiber parks), answers the server's own requests
// (`ping` with {}, anything else "method not found"), and hands other notifications to
// `on_notification` (on the reader thread). Lines that are not JSON-RPC and the child's stderr
// lines go to `on_stderr`. Destruction closes stdin, then sends SIGTERM, then SIGKILL, and reaps.
class StdioChannel final : public RpcChannel {
public:
  using LineHandler = std::function<void(std::string_view)>;
  using NotificationHandler = std::function<void(const RpcMessage&)>;

  static Result<std::unique_ptr<StdioChannel>> start(const StdioLaunch& launch, Waiter& waiter,
                                                     LineHandler on_stderr,
                                                     NotificationHandler on_notification);
  ~StdioChannel() override;
  StdioChannel(const StdioChannel&) = delete;
  StdioChannel& operator=(const StdioChannel&) = delete;

  RpcReply request(const RpcRequest& request) override;
  void notify(const std::string& method, const Json& params) override;
  void set_protocol(Era /*era*/, const std::string& /*version*/) override {}
  bool closed() const override { return m_closed.load(); }
  std::string last_stderr() const override;
  int pid() const override { return m_pid; }

private:
  struct Pending;
  StdioChannel(Waiter& waiter, LineHandler on_stderr, NotificationHandler on_notification);

  void read_loop();
  void on_line(std::string_view line);
  void on_stderr_line(std::string_view line);
  void close_all(const std::string& why);
  // Writes one message (and any queued answers), waiting for the write lock.
  bool write_line(const std::string& text);
  // Queues the reader's answer to the server and sends it if the write lock is free.
  void answer(const std::string& text);
  bool send_line(const std::string& text); // with the write lock held
  void flush_outbox();                     // with the write lock held
  void flush_outbox_if_free();
  bool outbox_empty() const;
  std::shared_ptr<Pending> take_pending(std::int64_t id);
  void shutdown_child();

  Waiter& m_waiter;
  LineHandler m_on_stderr;
  NotificationHandler m_on_notification;
  int m_pid = -1;
  int m_in = -1;   // our end of its stdin (a socket, so a write to a dead child is EPIPE)
  int m_out = -1;  // its stdout
  int m_err = -1;  // its stderr
  int m_stop = -1; // eventfd that ends the reader
  std::thread m_reader;
  std::atomic<bool> m_closed{false};
  std::atomic<std::int64_t> m_next_id{1};
  std::mutex m_write_mutex;
  mutable std::mutex m_mutex; // guards m_pending, m_last_stderr, m_outbox
  std::map<std::int64_t, std::shared_ptr<Pending>> m_pending;
  std::string m_last_stderr;
  std::vector<std::string> m_outbox; // the reader's answers not sent yet
};

} // namespace ralph::mcp
