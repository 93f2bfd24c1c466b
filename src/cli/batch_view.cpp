#include "cli/batch_view.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace ralph::cli {

using app::BatchEnd;
using app::BatchProgress;
using app::BatchSpend;
using app::GoalResult;
using app::RunningGoal;

namespace {

struct Counts {
  std::map<Status, int> by_status;
  int verified = 0;
  int attempts = 0;
  int most_attempts = 0;
  std::int64_t tokens = 0;
  double cost = 0;
  bool cost_known = true;
};

Counts count(const std::vector<GoalResult>& finished) {
  Counts counts;
  for (const GoalResult& goal : finished) {
    ++counts.by_status[goal.status];
    counts.verified += goal.verified ? 1 : 0;
    counts.attempts += goal.attempts;
    counts.most_attempts = std::max(counts.most_attempts, goal.attempts);
    counts.tokens += goal.tokens;
    counts.cost += goal.cost_usd.value_or(0);
  }
  return counts;
}

std::string tokens_text(std::int64_t tokens) {
  if (tokens >= 10'000'000) {
    return fmt::format("{}M", tokens / 1'000'000);
  }
  if (tokens >= 10'000) {
    return fmt::format("{}k", tokens / 1000);
  }
  return std::to_string(tokens);
}

std::string cost_text(const BatchSpend& spend) {
  return " · cost " + cost_words(spend.cost_usd, spend.cost_known);
}

} // namespace

std::string cost_words(double cost_usd, bool cost_known) {
  if (cost_known) {
    return fmt::format("${:.2f}", cost_usd);
  }
  return cost_usd > 0 ? fmt::format("≥${:.2f}", cost_usd) : std::string("unknown");
}

std::string short_duration(std::chrono::milliseconds duration) {
  const auto seconds = duration.count() / 1000;
  if (seconds < 60) {
    return fmt::format("{:.1f}s", static_cast<double>(duration.count()) / 1000.0);
  }
  if (seconds < 3600) {
    return fmt::format("{}m{:02}s", seconds / 60, seconds % 60);
  }
  return fmt::format("{}h{:02}m", seconds / 3600, (seconds % 3600) / 60);
}

std::vector<std::string> live_lines(const BatchProgress& progress, std::size_t width) {
  const Counts counts = count(progress.finished);
  const int done = static_cast<int>(progress.finished.size());
  const auto completed = counts.by_status.find(Status::completed);
  const int failed = done - (completed == counts.by_status.end() ? 0 : completed->second);
  std::string first =
      fmt::format("batch {} · {}/{} done · {} running · {} failed · {} verified · "
                  "{} tokens{}",
                  progress.batch_id, done, progress.goals, progress.running.size(), failed,
                  counts.verified, tokens_text(progress.spend.tokens), cost_text(progress.spend));
  const int left = progress.goals - done;
  if (progress.finished_now > 0 && left > 0) {
    const auto eta = progress.elapsed * left / progress.finished_now;
    first += " · ETA " + short_duration(eta);
  }
  std::vector<RunningGoal> slowest = progress.running;
  std::sort(slowest.begin(), slowest.end(),
            [](const RunningGoal& a, const RunningGoal& b) { return a.running > b.running; });
  std::string second = "  slowest:";
  for (std::size_t i = 0; i < std::min<std::size_t>(3, slowest.size()); ++i) {
    second += fmt::format(" {} {}{}", slowest[i].id, short_duration(slowest[i].running),
                          slowest[i].attempt > 1 ? fmt::format(" (attempt {})", slowest[i].attempt)
                                                 : std::string());
    second += i + 1 < std::min<std::size_t>(3, slowest.size()) ? " ·" : "";
  }
  std::vector<std::string> lines{first};
  if (!slowest.empty()) {
    lines.push_back(second);
  }
  for (std::string& line : lines) {
    if (width > 1 && line.size() >= width) {
      line.resize(width - 1); // one row each, so the redraw can move up over them
    }
  }
  return lines;
}

std::string summary_table(const BatchProgress& progress, const BatchEnd& end) {
  const Counts counts = count(progress.finished);
  const int done = static_cast<int>(progress.finished.size());
  std::string out = fmt::format("batch {}: {} goal(s)\n", progress.batch_id, progress.goals);
  for (const auto& [status, n] : counts.by_status) {
    out += fmt::format("  {:<18}{:>6}\n", to_string(status), n);
  }
  if (end.unfinished > 0) {
    out += fmt::format("  {:<18}{:>6}   (resumed when the batch runs again)\n", "unfinished",
                       end.unfinished);
  }
  if (end.not_started > 0) {
    out += fmt::format("  {:<18}{:>6}\n", "not started", end.not_started);
  }
  out += fmt::format("  {:<18}{:>6}   ({:.0f}% of finished goals)\n", "verified", counts.verified,
                     done > 0 ? 100.0 * counts.verified / done : 0.0);
  out += fmt::format("  {:<18}{:>6.1f}   (max {})\n", "attempts per goal",
                     done > 0 ? static_cast<double>(counts.attempts) / done : 0.0,
                     counts.most_attempts);
  out += fmt::format("  {:<18}{:>6}\n", "tokens", tokens_text(progress.spend.tokens));
  out += fmt::format("  {:<18}{:>6}\n", "cost",
                     cost_words(progress.spend.cost_usd, progress.spend.cost_known));
  out += fmt::format("  {:<18}{:>6}\n", "wall time", short_duration(progress.elapsed));
  if (end.budget) {
    out += fmt::format("the batch's {} budget ran out: running goals were stopped, no new goal "
                       "started\n",
                       budget_name(*end.budget));
  } else if (end.interrupted) {
    out += "interrupted: run the same command again to go on\n";
  }
  out += fmt::format("results: {}\n", end.results_file);
  return out;
}

std::string summary_json(const BatchProgress& progress, const BatchEnd& end) {
  const Counts counts = count(progress.finished);
  const int done = static_cast<int>(progress.finished.size());
  nlohmann::json statuses = nlohmann::json::object();
  for (const auto& [status, n] : counts.by_status) {
    statuses[to_string(status)] = n;
  }
  const nlohmann::json out = {
      {"batch", progress.batch_id},
      {"goals", progress.goals},
      {"finished", done},
      {"statuses", std::move(statuses)},
      {"unfinished", end.unfinished},
      {"not_started", end.not_started},
      {"verified", counts.verified},
      {"verified_rate", done > 0 ? static_cast<double>(counts.verified) / done : 0.0},
      {"attempts",
       {{"mean", done > 0 ? static_cast<double>(counts.attempts) / done : 0.0},
        {"max", counts.most_attempts}}},
      {"tokens", progress.spend.tokens},
      {"cost_usd", progress.spend.cost_known ? nlohmann::json(progress.spend.cost_usd)
                                             : nlohmann::json(nullptr)},
      {"wall_ms", progress.elapsed.count()},
      {"budget_exhausted",
       end.budget ? nlohmann::json(to_string(*end.budget)) : nlohmann::json(nullptr)},
      {"interrupted", end.interrupted},
      {"results", end.results_file},
  };
  return out.dump();
}

} // namespace ralph::cli
