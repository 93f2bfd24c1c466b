// ralph's load driver: N sessions, at most C at once, each a ReactAgent on one goal in its own
// workspace, all in this one process on an engine::Engine, against bench/load/load_server.cpp
// (another process, so its CPU and memory are not counted here). Prints a table row and a JSON
// object: wall time, model turns per second, the process's CPU per turn (user + system, all of
// ralph's work: requests built, sent, answers parsed, tools run, events and records written),
// p50/p99 of each model call's latency, peak RSS. bench/load.sh runs it; see docs/performance.md.
//
// Usage: ralph_load --url URL [--sessions N] [--concurrency C] [--tool-turns K] [--shell]
//                   [--json | --stream] [--store] [--threads T] [--thread-per-session]
//                   [--label NAME] [--curve] [--json-out FILE]
//        ralph_load plot-throughput RESULTS.jsonl OUT.svg
//        ralph_load plot-curve RESULTS.jsonl OUT.svg
#include "load/load_session.h"
#include "load/svg_chart.h"

#include "ralph/engine/engine.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ralph::bench {
namespace {

struct Options {
  std::string url;
  int sessions = 16;
  int concurrency = 0; // 0: all sessions at once
  unsigned threads = 0;
  std::string label; // empty: the host ("engine" or "thread per session")
  std::string json_out;
  bool curve = false; // report each turn's CPU (median over the sessions): run with C = 1
  // The baseline: a std::thread per worker, each waiting through its own engine::BlockingIo, as
  // `ralph run` hosts its one session (and as the engine's first stand-in did), not the engine.
  bool thread_per_session = false;
  SessionSettings session;
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "ralph_load: %s (see the usage at the top of bench/load/load_driver.cpp)\n",
               what.c_str());
  std::exit(2);
}

int positive(const std::string& flag, const std::string& value) {
  try {
    const int number = std::stoi(value);
    if (number > 0) {
      return number;
    }
  } catch (const std::exception&) {
  }
  usage_error(fmt::format("{} wants a positive whole number, got '{}'", flag, value));
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const auto value = [&] {
      if (i + 1 >= argc) {
        usage_error(flag + " wants a value");
      }
      return std::string(argv[++i]);
    };
    if (flag == "--url") {
      options.url = value();
    } else if (flag == "--sessions") {
      options.sessions = positive(flag, value());
    } else if (flag == "--concurrency") {
      options.concurrency = positive(flag, value());
    } else if (flag == "--tool-turns") {
      options.session.tool_turns = positive(flag, value());
    } else if (flag == "--threads") {
      options.threads = static_cast<unsigned>(positive(flag, value()));
    } else if (flag == "--label") {
      options.label = value();
    } else if (flag == "--json-out") {
      options.json_out = value();
    } else if (flag == "--shell") {
      options.session.shell = true;
    } else if (flag == "--json") {
      options.session.stream = false;
    } else if (flag == "--stream") {
      options.session.stream = true;
    } else if (flag == "--store") {
      options.session.store = true;
    } else if (flag == "--thread-per-session") {
      options.thread_per_session = true;
    } else if (flag == "--curve") {
      options.curve = true;
    } else {
      usage_error("unknown argument '" + flag + "'");
    }
  }
  if (options.url.empty()) {
    usage_error("--url is required (the load server's base URL)");
  }
  if (options.concurrency == 0 || options.concurrency > options.sessions) {
    options.concurrency = options.sessions;
  }
  if (options.label.empty()) {
    options.label = options.thread_per_session ? "thread per session" : "engine";
  }
  options.session.base_url = options.url + "/v1";
  return options;
}

double percentile(std::vector<double> values, double share) {
  if (values.empty()) {
    return 0;
  }
  const auto at =
      static_cast<std::size_t>(std::lround(share * static_cast<double>(values.size() - 1)));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

double cpu_us(const rusage& usage) {
  const auto us = [](const timeval& time) {
    return static_cast<double>(time.tv_sec) * 1e6 + static_cast<double>(time.tv_usec);
  };
  return us(usage.ru_utime) + us(usage.ru_stime);
}

int run(const Options& options) {
  char root_template[] = "/tmp/ralph-load.XXXXXX";
  if (mkdtemp(root_template) == nullptr) {
    std::perror("ralph_load: mkdtemp");
    return 1;
  }
  const std::filesystem::path root = root_template;
  // Made before the clock starts: the workspaces are the bench's, not a session's work.
  std::vector<std::filesystem::path> workspaces;
  workspaces.reserve(static_cast<std::size_t>(options.sessions));
  for (int i = 0; i < options.sessions; ++i) {
    workspaces.push_back(make_session_workspace(root, i));
  }

  session::Runtime runtime;
  std::vector<SessionTimes> results(static_cast<std::size_t>(options.sessions));
  std::atomic<int> next{0};
  rusage before{};
  rusage after{};
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point end;
  unsigned threads = 0;
  // C workers, each taking the next session when its last one ends: at most C in flight.
  const auto worker = [&](engine::Io& io) {
    for (int i = next++; i < options.sessions; i = next++) {
      results[static_cast<std::size_t>(i)] = run_load_session(
          runtime, io, options.session, workspaces[static_cast<std::size_t>(i)], i);
    }
  };
  if (options.thread_per_session) {
    threads = static_cast<unsigned>(options.concurrency);
    getrusage(RUSAGE_SELF, &before);
    start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    workers.reserve(static_cast<std::size_t>(options.concurrency));
    for (int i = 0; i < options.concurrency; ++i) {
      workers.emplace_back([&] {
        engine::BlockingIo io;
        worker(io);
      });
    }
    for (std::thread& thread : workers) {
      thread.join();
    }
    end = std::chrono::steady_clock::now();
    getrusage(RUSAGE_SELF, &after);
  } else {
    engine::Engine engine({.threads = options.threads});
    threads = engine.threads();
    getrusage(RUSAGE_SELF, &before);
    start = std::chrono::steady_clock::now();
    for (int i = 0; i < options.concurrency; ++i) {
      engine.spawn(worker);
    }
    engine.wait();
    end = std::chrono::steady_clock::now();
    getrusage(RUSAGE_SELF, &after);
  }
  std::error_code ignored;
  std::filesystem::remove_all(root, ignored);

  int turns = 0;
  int failed = 0;
  std::string first_error;
  std::vector<double> latencies;
  for (const SessionTimes& times : results) {
    turns += times.turns;
    latencies.insert(latencies.end(), times.latency_us.begin(), times.latency_us.end());
    if (!times.answered) {
      ++failed;
      if (first_error.empty()) {
        first_error = times.error;
      }
    }
  }
  const double wall_s = std::chrono::duration<double>(end - start).count();
  const double cpu = cpu_us(after) - cpu_us(before);
  nlohmann::json report = {
      {"label", options.label},
      {"mode", options.session.stream ? "stream" : "json"},
      {"store", options.session.store},
      {"tool", options.session.shell ? "shell" : "read_file"},
      {"host", options.thread_per_session ? "thread per session" : "engine"},
      {"threads", threads},
      {"sessions", options.sessions},
      {"concurrency", options.concurrency},
      {"turns", turns},
      {"failed", failed},
      {"wall_s", wall_s},
      {"turns_per_s", turns / wall_s},
      {"cpu_per_turn_us", turns > 0 ? cpu / turns : 0.0},
      {"p50_turn_ms", percentile(latencies, 0.5) / 1000},
      {"p99_turn_ms", percentile(latencies, 0.99) / 1000},
      {"peak_rss_mb", static_cast<double>(after.ru_maxrss) / 1024},
  };
  if (!first_error.empty()) {
    report["first_error"] = first_error;
  }
  if (options.curve) {
    // Turn k's CPU, the median over the sessions (each ran alone when C = 1).
    std::vector<double> per_turn;
    for (std::size_t k = 0;; ++k) {
      std::vector<double> at_k;
      for (const SessionTimes& times : results) {
        if (k < times.turn_cpu_us.size()) {
          at_k.push_back(times.turn_cpu_us[k]);
        }
      }
      if (at_k.empty()) {
        break;
      }
      per_turn.push_back(percentile(at_k, 0.5));
    }
    report["turn_cpu_us"] = per_turn;
  }

  std::printf("%-22s %6s %5s %6s %5s %6s %8s %9s %11s %8s %8s %8s\n", "label", "mode", "store",
              "sess", "conc", "turns", "wall_s", "turns/s", "cpu/turn_us", "p50_ms", "p99_ms",
              "rss_MB");
  std::printf("%-22s %6s %5s %6d %5d %6d %8.3f %9.1f %11.1f %8.2f %8.2f %8.1f\n",
              options.label.c_str(), options.session.stream ? "stream" : "json",
              options.session.store ? "yes" : "no", options.sessions, options.concurrency, turns,
              wall_s, turns / wall_s, turns > 0 ? cpu / turns : 0.0,
              percentile(latencies, 0.5) / 1000, percentile(latencies, 0.99) / 1000,
              static_cast<double>(after.ru_maxrss) / 1024);
  if (failed > 0) {
    std::printf("%d sessions did not answer; the first: %s\n", failed, first_error.c_str());
  }
  std::printf("%s\n", report.dump().c_str());
  if (!options.json_out.empty()) {
    std::ofstream(options.json_out, std::ios::app) << report.dump() << "\n";
  }
  return failed == 0 ? 0 : 1;
}

std::vector<nlohmann::json> read_results(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    usage_error("cannot read " + path);
  }
  std::vector<nlohmann::json> rows;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) {
      continue;
    }
    auto row = nlohmann::json::parse(line, nullptr, false);
    if (!row.is_object()) {
      usage_error(fmt::format("{}:{}: not a JSON object", path, number));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// Throughput against concurrency: one line per label, the median of the runs at each C.
Chart throughput_chart(const std::vector<nlohmann::json>& rows) {
  std::map<std::string, std::map<int, std::vector<double>>> runs;
  for (const auto& row : rows) {
    runs[row.value("label", "")][row.value("concurrency", 0)].push_back(
        row.value("turns_per_s", 0.0));
  }
  Chart chart{.title = "Model turns per second against concurrency (0 latency)",
              .x_label = "sessions in flight (log scale)",
              .y_label = "model turns / s",
              .log_x = true};
  for (const auto& [label, by_c] : runs) {
    Series series{.name = label};
    for (const auto& [c, values] : by_c) {
      series.points.emplace_back(c, percentile(values, 0.5));
    }
    chart.series.push_back(std::move(series));
  }
  return chart;
}

// CPU of turn k against k: one line per label, the median of its runs at each k.
Chart curve_chart(const std::vector<nlohmann::json>& rows) {
  std::map<std::string, std::vector<std::vector<double>>> runs;
  for (const auto& row : rows) {
    auto& turns = runs[row.value("label", "")];
    const auto& values = row.at("turn_cpu_us");
    turns.resize(std::max(turns.size(), values.size()));
    for (std::size_t k = 0; k < values.size(); ++k) {
      turns[k].push_back(values[k].get<double>());
    }
  }
  Chart chart{.title = "ralph's CPU per model turn against conversation length",
              .x_label = "model turn k of one session",
              .y_label = "CPU of turn k (us)"};
  for (const auto& [label, turns] : runs) {
    Series series{.name = label};
    for (std::size_t k = 0; k < turns.size(); ++k) {
      series.points.emplace_back(static_cast<double>(k + 1), percentile(turns[k], 0.5));
    }
    chart.series.push_back(std::move(series));
  }
  return chart;
}

int plot(const std::string& kind, const std::string& in, const std::string& out) {
  const auto rows = read_results(in);
  const Chart chart = kind == "plot-throughput" ? throughput_chart(rows) : curve_chart(rows);
  std::ofstream file(out);
  file << render_svg(chart);
  if (!file) {
    std::fprintf(stderr, "ralph_load: cannot write %s\n", out.c_str());
    return 1;
  }
  return 0;
}

} // namespace
} // namespace ralph::bench

int main(int argc, char** argv) {
  if (argc > 1 &&
      (std::string(argv[1]) == "plot-throughput" || std::string(argv[1]) == "plot-curve")) {
    if (argc != 4) {
      ralph::bench::usage_error(std::string(argv[1]) + " wants RESULTS.jsonl OUT.svg");
    }
    return ralph::bench::plot(argv[1], argv[2], argv[3]);
  }
  return ralph::bench::run(ralph::bench::parse(argc, argv));
}
