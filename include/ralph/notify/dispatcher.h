#pragma once

#include "ralph/core/cancel.h"
#include "ralph/core/settings.h"
#include "ralph/notify/notification.h"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace ralph::notify {

// Delivers notifications on threads of its own, one per target (so a receiver that hangs holds up
// no other), each target's in the order they were posted, so that no session ever waits for a
// receiver: webhooks through libcurl (retried, see deliver_webhook), commands through posix_spawn
// (run_command_hook). Every delivery that fails, is dropped or is
// cut short at the end is reported through `warn`, one line naming the target without its
// secrets. Thread-safe; libcurl's global start must have run before the first webhook.
class Dispatcher {
public:
  // Told each delivery that did not happen, from the dispatcher's thread or from post/drain.
  using Warn = std::function<void(const std::string& line)>;
  static constexpr std::size_t k_capacity = 256; // deliveries waiting per target; more are dropped

  explicit Dispatcher(Warn warn, std::size_t capacity = k_capacity);
  // Drains (see drain).
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Queues `notification` for `target`, signed with `secret` when it is not empty. Never waits:
  // when the queue is full or the dispatcher has drained, the delivery is dropped and reported.
  void post(const NotifyTarget& target, std::string secret, Notification notification);

  // Waits for the deliveries queued and under way, each target's at most the longest `timeout`
  // of its own (the targets' deliveries go on side by side), then stops what is left and reports
  // each delivery that did not happen. Later posts are dropped (and reported). Returns how many
  // deliveries did not happen, failures included.
  int drain();

private:
  struct Job {
    NotifyTarget target;
    std::string secret;
    Notification notification;
  };
  // One target's deliveries and the thread that makes them.
  struct Lane {
    std::deque<Job> queue;
    std::optional<Job> current; // being delivered
    std::thread thread;
    CancelToken stop; // cancelled when drain's wait for this target ends
    bool idle() const { return queue.empty() && !current; }
  };
  void work(Lane& lane);
  void deliver(const Job& job, const CancelToken& stop);
  void report(const Job& job, const std::string& why);

  Warn m_warn;
  std::size_t m_capacity;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::map<std::string, std::unique_ptr<Lane>> m_lanes; // by target
  bool m_closed = false;
  int m_lost = 0; // deliveries that did not happen
};

} // namespace ralph::notify
