#pragma once

#include <sys/resource.h>
#include <utility>

namespace ralph::bench {

// This thread's {user, system} CPU time so far, in microseconds. The kernel measures the sum
// exactly and splits it between user and system by sampling, so the split is approximate.
inline std::pair<double, double> thread_cpu_us() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  const auto us = [](const timeval& time) {
    return static_cast<double>(time.tv_sec) * 1e6 + static_cast<double>(time.tv_usec);
  };
  return {us(usage.ru_utime), us(usage.ru_stime)};
}

} // namespace ralph::bench
