#include "app/batch/worker_schedule.h"

#include <algorithm>

namespace ralph::app {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds k_first_poll{100};
constexpr milliseconds k_last_poll{2000};

} // namespace

WorkerSchedule::WorkerSchedule(time_point now, milliseconds lease)
    : m_renew_every(lease / 3), m_poll(k_first_poll), m_next_claim(now),
      m_next_renew(now + m_renew_every) {}

void WorkerSchedule::claimed(time_point now, bool got_some, bool was_idle) {
  m_poll = got_some ? k_first_poll : std::min(m_poll * 2, k_last_poll);
  m_next_claim = got_some ? now : now + m_poll;
  if (got_some && was_idle) {
    m_next_renew = now + m_renew_every; // fresh leases
  }
}

WorkerSchedule::time_point WorkerSchedule::next(bool holding, bool stopping) const {
  if (stopping) {
    return m_next_renew;
  }
  return holding ? std::min(m_next_claim, m_next_renew) : m_next_claim;
}

} // namespace ralph::app
