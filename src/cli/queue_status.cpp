#include "cli/queue_status.h"

#include "cli/batch_view.h"

#include "ralph/core/json.h"
#include "ralph/core/try.h"
#include "ralph/core/url.h"
#include "ralph/store/jsonl_journal.h"
#include "ralph/store/open_session_store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>

namespace ralph::cli {
namespace {

Result<std::unique_ptr<store::GoalQueue>> open_queue(const std::string& url) {
  if (!store::is_server_url(url)) {
    return fail(ErrorKind::usage,
                fmt::format("--queue '{}': expected a PostgreSQL URL (postgresql://...)",
                            url_without_password(url)));
  }
  return store::GoalQueue::open(url, std::chrono::seconds(30));
}

Error no_batch(const std::string& name, const std::string& url) {
  return Error{.kind = ErrorKind::usage,
               .message = fmt::format("no batch '{}' in the queue {} (`ralph batch status --queue "
                                      "URL` lists them)",
                                      name, url_without_password(url))};
}

} // namespace

std::string queue_status_table(const store::QueueStatus& status) {
  const int finished = status.done + status.failed;
  std::string out = fmt::format("batch {}: {} goal(s), queued {}\n", status.batch, status.goals(),
                                status.created_at);
  out += fmt::format("  {:<18}{:>6}\n", "queued", status.queued);
  out += fmt::format(
      "  {:<18}{:>6}{}\n", "running", status.running,
      status.stale > 0 ? fmt::format("   ({} with a lease run out: taken over next)", status.stale)
                       : std::string());
  for (const auto& [worker, n] : status.running_by_worker) {
    out += fmt::format("    {:<16}{:>6}\n", worker, n);
  }
  out += fmt::format("  {:<18}{:>6}\n", "done", status.done);
  out += fmt::format("  {:<18}{:>6}\n", "failed", status.failed);
  out += fmt::format("  {:<18}{:>6}   ({:.0f}% of finished goals)\n", "verified", status.verified,
                     finished > 0 ? 100.0 * status.verified / finished : 0.0);
  out += fmt::format("  {:<18}{:>6}\n", "tokens", status.tokens);
  out += fmt::format("  {:<18}{:>6}\n", "cost", cost_words(status.cost_usd, status.cost_known));
  // Done and failed goals alike: under "failed" a completed one would read as a failure.
  if (!status.statuses.empty()) {
    out += "  finished goals by their session's status:\n";
    for (const auto& [name, n] : status.statuses) {
      out += fmt::format("    {:<16}{:>6}\n", name, n);
    }
  }
  return out;
}

std::string queue_status_json(const store::QueueStatus& status) {
  const int finished = status.done + status.failed;
  return nlohmann::json{
      {"batch", status.batch},
      {"created_at", status.created_at},
      {"goals", status.goals()},
      {"queued", status.queued},
      {"running", status.running},
      {"stale", status.stale},
      {"running_by_worker", status.running_by_worker},
      {"done", status.done},
      {"failed", status.failed},
      {"finished", finished},
      {"statuses", status.statuses},
      {"verified", status.verified},
      {"verified_rate", finished > 0 ? static_cast<double>(status.verified) / finished : 0.0},
      {"tokens", status.tokens},
      {"cost_usd", status.cost_known ? nlohmann::json(status.cost_usd) : nlohmann::json()}}
      .dump();
}

std::string queue_workers_table(const std::vector<store::WorkerStatus>& workers) {
  if (workers.empty()) {
    return {};
  }
  std::string out =
      "workers (heartbeat: the last claim or lease renewal, on the server's clock):\n";
  for (const store::WorkerStatus& worker : workers) {
    const std::string heartbeat =
        worker.heartbeat_age_ms
            ? fmt::format("heartbeat {:.1f} s ago",
                          static_cast<double>(*worker.heartbeat_age_ms) / 1000.0)
            : std::string("heartbeat unknown");
    const int stale = worker.stale();
    out +=
        fmt::format("  {:<16}{:>6} goal(s)   {}{}\n", worker.name, worker.goals.size(), heartbeat,
                    stale > 0 ? fmt::format("   ({} with a lease run out)", stale) : std::string());
  }
  return out;
}

Result<int> queue_status_command(const RunArgs& args, const BatchArgs& batch) {
  TRY_ASSIGN(auto queue, open_queue(batch.queue));
  std::vector<store::QueueStatus> shown;
  if (batch.name.empty()) {
    TRY_ASSIGN(shown, queue->batches());
  } else {
    TRY_ASSIGN(const auto one, queue->status(batch.name));
    if (!one) {
      return tl::unexpected(no_batch(batch.name, batch.queue));
    }
    shown.push_back(*one);
  }
  if (args.json) {
    // One object per batch; one line each, so several batches read as JSON lines.
    for (const store::QueueStatus& status : shown) {
      std::printf("%s\n", queue_status_json(status).c_str());
    }
    return 0;
  }
  if (shown.empty()) {
    std::printf("no batches in the queue %s\n", url_without_password(batch.queue).c_str());
  }
  for (const store::QueueStatus& status : shown) {
    std::fputs(queue_status_table(status).c_str(), stdout);
  }
  TRY_ASSIGN(auto workers, queue->workers());
  if (!batch.name.empty()) {
    // Only what they hold of the batch shown.
    for (store::WorkerStatus& worker : workers) {
      std::erase_if(worker.goals,
                    [&](const store::HeldGoal& goal) { return goal.batch != batch.name; });
    }
    std::erase_if(workers, [](const store::WorkerStatus& worker) { return worker.goals.empty(); });
  }
  std::fputs(queue_workers_table(workers).c_str(), stdout);
  return 0;
}

Result<int> queue_export_command(const BatchArgs& batch) {
  TRY_ASSIGN(auto queue, open_queue(batch.queue));
  TRY_ASSIGN(const auto status, queue->status(batch.name));
  if (!status) {
    return tl::unexpected(no_batch(batch.name, batch.queue));
  }
  TRY_ASSIGN(const auto goals, queue->goals(batch.name, true));
  std::unique_ptr<store::JsonlJournal> file;
  if (!batch.output_file.empty()) {
    // Replaced whole: an export is the queue's state now, not an addition to an older one.
    std::error_code ec;
    std::filesystem::remove(batch.output_file, ec);
    TRY_ASSIGN(file, store::JsonlJournal::open(batch.output_file));
  }
  for (const store::QueuedGoal& goal : goals) {
    auto line = parse_json(goal.result_json, "goal result").value_or(nlohmann::json());
    if (!line.is_object()) {
      line = {{"id", goal.id}, {"status", goal.status}, {"session_id", goal.session_id}};
    }
    if (file) {
      TRY(file->append(line));
    } else {
      std::printf("%s\n",
                  line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    }
  }
  if (file) {
    std::fprintf(stderr, "ralph batch export: %zu finished goal(s) of %d to %s\n", goals.size(),
                 status->goals(), batch.output_file.c_str());
  }
  return 0;
}

} // namespace ralph::cli
