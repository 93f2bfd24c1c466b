#include "rlm/query_batch.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>

namespace ralph::rlm {

Result<SubAnswer> ask_safely(const SubQueryFn& ask, const SubQuery& query) {
  try {
    return ask(query);
  } catch (const std::exception& e) {
    return fail(ErrorKind::internal, fmt::format("the sub-query failed: {}", e.what()));
  } catch (...) {
    // Runs on helper threads too, where an escaping exception would end the process.
    return fail(ErrorKind::internal, "the sub-query failed with an unknown exception");
  }
}

BatchAnswers run_batch(std::span<const SubQuery> queries, const SubQueryFn& ask, int max_concurrent,
                       const CancelToken& cancel) {
  BatchAnswers out;
  out.answers.assign(queries.size(),
                     fail(ErrorKind::cancelled, "cancelled before the query was asked"));
  std::atomic<std::size_t> next{0};
  std::atomic<int> calls{0};
  // Each worker takes the next unasked query until none is left; the answers vector is sized
  // up front and each slot is written by exactly one worker.
  const auto work = [&] {
    for (std::size_t i = next++; i < queries.size(); i = next++) {
      if (cancel.cancelled()) {
        continue;
      }
      ++calls;
      out.answers[i] = ask_safely(ask, queries[i]);
    }
  };
  const std::size_t workers =
      std::min(queries.size(), static_cast<std::size_t>(std::max(1, max_concurrent)));
  std::vector<std::jthread> threads;
  if (workers > 1) {
    threads.reserve(workers);
    try {
      for (std::size_t t = 0; t < workers; ++t) {
        threads.emplace_back(work);
      }
    } catch (const std::system_error&) {
      // Out of threads: the ones started, or this thread below, do the rest.
    }
  }
  if (threads.empty()) {
    work();
  }
  threads.clear(); // joins
  out.calls = calls.load();
  return out;
}

} // namespace ralph::rlm
