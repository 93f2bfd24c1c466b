#pragma once

#include "ralph/core/clock.h"

#include <chrono>

namespace ralph::app {

// When a worker next claims goals and renews its leases, as times of its clock. A claim that got
// goals is followed by another at once (for the rest); one that got none backs off, 100 ms
// doubling up to 2 s; a goal finished frees a slot, claimed at once. Leases are renewed every
// third of the lease, counted from when the worker went from holding nothing to holding goals.
class WorkerSchedule {
public:
  using time_point = Clock::time_point;

  WorkerSchedule(time_point now, std::chrono::milliseconds lease);

  bool claim_due(time_point now) const { return now >= m_next_claim; }
  bool renew_due(time_point now) const { return now >= m_next_renew; }
  // A claim at `now` got goals or not; `was_idle`: the worker held none before it.
  void claimed(time_point now, bool got_some, bool was_idle);
  void renewed(time_point now) { m_next_renew = now + m_renew_every; }
  void slot_freed(time_point now) { m_next_claim = now; }
  // What to wait for: the next claim or renewal (renewals only while `holding` goals); `stopping`,
  // no claim is made, only the renewals of the goals winding down.
  time_point next(bool holding, bool stopping) const;

private:
  std::chrono::milliseconds m_renew_every;
  std::chrono::milliseconds m_poll;
  time_point m_next_claim;
  time_point m_next_renew;
};

} // namespace ralph::app
