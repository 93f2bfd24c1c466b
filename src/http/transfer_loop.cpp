#include "ralph/http/transfer_loop.h"

#include "curl_easy.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <list>
#include <stdexcept>
#include <string>
#include <vector>

namespace ralph::http {
namespace {

// How often the cancel tokens and idle deadlines of all transfers are looked at.
constexpr std::chrono::milliseconds k_check_interval{50};
// Idle easy handles kept for reuse: enough for a burst, few enough to give memory back.
constexpr std::size_t k_spare_handles = 64;

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
    const CancelToken* cancel = nullptr;
    std::string where;
    Done done;
    std::list<Running>::iterator self; // for libcurl's CURLINFO_PRIVATE way back to the entry
  };

  MultiPtr multi{curl_multi_init()};
  std::list<Running> running; // stable addresses: libcurl holds pointers into each
  std::vector<EasyPtr> spare;
  std::vector<curl_waitfd> waitfds;
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
      if (it->cancel->cancelled()) {
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
  if (!m_state->multi) {
    throw std::runtime_error("libcurl could not create a multi handle");
  }
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
  run.cancel = &cancel;
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
  state.waitfds.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    state.waitfds[i] = curl_waitfd{fds[i].fd, static_cast<short>(fds[i].events), 0};
  }
  int timeout_ms = static_cast<int>(timeout.count());
  if (!state.running.empty()) {
    timeout_ms = std::min(timeout_ms, static_cast<int>(k_check_interval.count()));
  }
  curl_multi_poll(state.multi.get(), state.waitfds.data(), static_cast<unsigned>(count), timeout_ms,
                  nullptr);
  for (std::size_t i = 0; i < count; ++i) {
    fds[i].revents = state.waitfds[i].revents;
  }
  int still_running = 0;
  curl_multi_perform(state.multi.get(), &still_running);
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
  const auto now = SteadyClock::now();
  if (now >= state.next_check) {
    state.next_check = now + k_check_interval;
    state.check_deadlines(now);
  }
}

void TransferLoop::wakeup() {
  curl_multi_wakeup(m_state->multi.get());
}

std::size_t TransferLoop::active() const {
  return m_state->running.size();
}

} // namespace ralph::http
