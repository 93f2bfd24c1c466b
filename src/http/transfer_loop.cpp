#include "ralph/http/transfer_loop.h"

#include "curl_easy.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <list>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <vector>

namespace ralph::http {
namespace {

// How often the cancel tokens and idle deadlines of all transfers are looked at.
constexpr std::chrono::milliseconds k_check_interval{50};
// Idle easy handles kept for reuse: enough for a burst, few enough to give memory back.
constexpr std::size_t k_spare_handles = 64;

// A file descriptor closed with its owner.
class OwnedFd {
public:
  explicit OwnedFd(int fd) : m_fd(fd) {}
  ~OwnedFd() {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  int get() const { return m_fd; }

private:
  int m_fd;
};

// libcurl's socket callback: it says which sockets to watch for what; they go in the epoll set,
// so a wait costs the same with a thousand transfers as with one.
int on_socket(CURL*, curl_socket_t socket, int what, void* user, void*) {
  const int epoll = *static_cast<int*>(user);
  if (what == CURL_POLL_REMOVE) {
    ::epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nullptr);
    return 0;
  }
  epoll_event event{};
  event.events =
      ((what & CURL_POLL_IN) != 0 ? EPOLLIN : 0U) | ((what & CURL_POLL_OUT) != 0 ? EPOLLOUT : 0U);
  event.data.fd = socket;
  if (::epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT) {
    ::epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event);
  }
  return 0;
}

// libcurl's timer callback: when it next wants socket_action(CURL_SOCKET_TIMEOUT).
int on_timer(CURLM*, long timeout_ms, void* user) {
  auto& deadline = *static_cast<std::optional<SteadyClock::time_point>*>(user);
  if (timeout_ms < 0) {
    deadline.reset();
  } else {
    deadline = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
  }
  return 0;
}

// What an exception a callback threw says, for the transfer's error.
std::string what(const std::exception_ptr& exception) {
  try {
    std::rethrow_exception(exception);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

} // namespace

struct TransferLoop::State {
  struct Running {
    Transfer transfer;
    EasyPtr easy;
    SlistPtr headers;
    const Request* request = nullptr;
    CancelToken cancel;
    std::string where;
    Done done;
    std::list<Running>::iterator self; // for libcurl's CURLINFO_PRIVATE way back to the entry
  };

  MultiPtr multi{curl_multi_init()};
  OwnedFd epoll{::epoll_create1(EPOLL_CLOEXEC)};
  OwnedFd wake{::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)};
  int epoll_fd = epoll.get(); // what the socket callback is given
  std::optional<SteadyClock::time_point> curl_deadline;
  std::vector<pollfd> pollfds;
  std::list<Running> running; // stable addresses: libcurl holds pointers into each
  std::vector<EasyPtr> spare;
  SteadyClock::time_point next_check = SteadyClock::now() + k_check_interval;

  ~State() {
    for (Running& each : running) {
      curl_multi_remove_handle(multi.get(), each.easy.get());
    }
  }

  // Removes `it` from the multi handle and runs its Done with `result`.
  void end(std::list<Running>::iterator it, Result<Response> result) {
    curl_multi_remove_handle(multi.get(), it->easy.get());
    Done done = std::move(it->done);
    EasyPtr easy = std::move(it->easy);
    running.erase(it);
    if (spare.size() < k_spare_handles) {
      curl_easy_reset(easy.get());
      spare.push_back(std::move(easy));
    }
    done(std::move(result));
  }

  void check_deadlines(SteadyClock::time_point now) {
    for (auto it = running.begin(); it != running.end();) {
      const auto next = std::next(it);
      const Request& request = *it->request;
      if (it->cancel.cancelled()) {
        end(it, fail(transport_error(ErrorKind::cancelled, false, it->where + ": cancelled")));
      } else if (request.idle_timeout.count() > 0 &&
                 now - it->transfer.last_activity >= request.idle_timeout) {
        end(it, fail(transport_error(ErrorKind::timeout, true,
                                     fmt::format("{}: no data received for {} ms", it->where,
                                                 request.idle_timeout.count()))));
      }
      it = next;
    }
  }
};

TransferLoop::TransferLoop() : m_state(std::make_unique<State>()) {
  State& state = *m_state;
  if (!state.multi || state.epoll.get() < 0 || state.wake.get() < 0) {
    throw std::runtime_error("could not set up a transfer loop (libcurl multi, epoll, eventfd)");
  }
  CURLM* multi = state.multi.get();
  curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
  curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, &state.epoll_fd);
  curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
  curl_multi_setopt(multi, CURLMOPT_TIMERDATA, &state.curl_deadline);
}

TransferLoop::~TransferLoop() = default;

Result<void> TransferLoop::start(const Request& request, const BodySink& sink,
                                 const CancelToken& cancel, Done done) {
  State& state = *m_state;
  EasyPtr easy;
  if (!state.spare.empty()) {
    easy = std::move(state.spare.back());
    state.spare.pop_back();
  } else {
    easy.reset(curl_easy_init());
    if (!easy) {
      return fail(ErrorKind::internal, "libcurl could not create a handle");
    }
  }
  auto& run = state.running.emplace_back();
  const auto it = std::prev(state.running.end());
  run.easy = std::move(easy);
  run.request = &request;
  run.cancel = cancel;
  run.where = describe(request);
  run.done = std::move(done);
  run.self = it;
  run.transfer.easy = run.easy.get();
  run.transfer.sink = &sink;
  auto headers = configure(run.easy.get(), request, run.transfer);
  curl_easy_setopt(run.easy.get(), CURLOPT_PRIVATE, &run);
  if (!headers || curl_multi_add_handle(state.multi.get(), run.easy.get()) != CURLM_OK) {
    Error error = headers ? Error{.kind = ErrorKind::internal,
                                  .message = run.where + ": could not start the transfer"}
                          : headers.error();
    state.running.erase(it);
    return fail(std::move(error));
  }
  run.headers = std::move(*headers);
  return {};
}

void TransferLoop::run_once(pollfd* fds, std::size_t count, std::chrono::milliseconds timeout) {
  State& state = *m_state;
  auto now = SteadyClock::now();
  auto wait = timeout;
  if (state.curl_deadline) {
    wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(
                              std::max(*state.curl_deadline - now, SteadyClock::duration(0))));
  }
  if (!state.running.empty()) {
    wait = std::min(wait, k_check_interval);
  }
  // One poll over the epoll set of libcurl's sockets, the wakeup and the caller's descriptors.
  state.pollfds.clear();
  state.pollfds.push_back(pollfd{state.epoll.get(), POLLIN, 0});
  state.pollfds.push_back(pollfd{state.wake.get(), POLLIN, 0});
  state.pollfds.insert(state.pollfds.end(), fds, fds + count);
  if (::poll(state.pollfds.data(), state.pollfds.size(), static_cast<int>(wait.count())) < 0) {
    state.pollfds[0].revents = state.pollfds[1].revents = 0;
    for (std::size_t i = 0; i < count; ++i) {
      state.pollfds[2 + i].revents = 0;
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    fds[i].revents = state.pollfds[2 + i].revents;
  }
  if (state.pollfds[1].revents != 0) {
    std::uint64_t wakes = 0;
    (void)::read(state.wake.get(), &wakes, sizeof(wakes));
  }
  int still_running = 0;
  if (state.pollfds[0].revents != 0) {
    std::array<epoll_event, 256> events{};
    int ready = 0;
    do {
      ready = ::epoll_wait(state.epoll.get(), events.data(), static_cast<int>(events.size()), 0);
      for (int i = 0; i < ready; ++i) {
        const std::uint32_t got = events[static_cast<std::size_t>(i)].events;
        const int flags = ((got & EPOLLIN) != 0 ? CURL_CSELECT_IN : 0) |
                          ((got & EPOLLOUT) != 0 ? CURL_CSELECT_OUT : 0) |
                          ((got & (EPOLLERR | EPOLLHUP)) != 0 ? CURL_CSELECT_ERR : 0);
        curl_multi_socket_action(state.multi.get(), events[static_cast<std::size_t>(i)].data.fd,
                                 flags, &still_running);
      }
    } while (ready == static_cast<int>(events.size()));
  }
  now = SteadyClock::now();
  if (state.curl_deadline && now >= *state.curl_deadline) {
    state.curl_deadline.reset();
    curl_multi_socket_action(state.multi.get(), CURL_SOCKET_TIMEOUT, 0, &still_running);
  }
  int queued = 0;
  while (CURLMsg* message = curl_multi_info_read(state.multi.get(), &queued)) {
    if (message->msg != CURLMSG_DONE) {
      continue;
    }
    char* entry = nullptr;
    curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &entry);
    auto* run = reinterpret_cast<State::Running*>(entry);
    Result<Response> result =
        run->transfer.exception
            ? fail(ErrorKind::internal, run->where + ": " + what(run->transfer.exception))
            : finish(run->transfer, message->data.result, run->where);
    state.end(run->self, std::move(result));
  }
  now = SteadyClock::now();
  if (now >= state.next_check) {
    state.next_check = now + k_check_interval;
    state.check_deadlines(now);
  }
}

void TransferLoop::wakeup() {
  const std::uint64_t one = 1;
  (void)::write(m_state->wake.get(), &one, sizeof(one));
}

std::size_t TransferLoop::active() const {
  return m_state->running.size();
}

} // namespace ralph::http
