#include "load/load_session.h"

#include "counting_sink.h"

#include "ralph/llm/factory.h"
#include "ralph/session/session.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <sys/resource.h>

namespace ralph::bench {
namespace {

double process_cpu_us() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto us = [](const timeval& time) {
    return static_cast<double>(time.tv_sec) * 1e6 + static_cast<double>(time.tv_usec);
  };
  return us(usage.ru_utime) + us(usage.ru_stime);
}

// Times each model call around the real provider: the request built, sent, answered and parsed.
class TimedProvider final : public llm::Provider {
public:
  TimedProvider(llm::Provider& inner, SessionTimes& times) : m_inner(inner), m_times(times) {}

  Result<llm::ChatResponse> chat(const llm::ChatRequest& request, llm::StreamObserver* observer,
                                 const CancelToken& cancel) override {
    const double cpu = process_cpu_us();
    if (m_last_cpu) {
      m_times.turn_cpu_us.push_back(cpu - *m_last_cpu);
    }
    m_last_cpu = cpu;
    const auto start = std::chrono::steady_clock::now();
    auto response = m_inner.chat(request, observer, cancel);
    m_times.latency_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
    return response;
  }
  std::string_view name() const override { return m_inner.name(); }

  // Closes the last turn's CPU span (its tool runs after the call; an answer has none).
  void finish() {
    if (m_last_cpu) {
      m_times.turn_cpu_us.push_back(process_cpu_us() - *m_last_cpu);
    }
  }

private:
  llm::Provider& m_inner;
  SessionTimes& m_times;
  std::optional<double> m_last_cpu;
};

} // namespace

std::filesystem::path make_session_workspace(const std::filesystem::path& root, int index) {
  const std::filesystem::path workspace = root / fmt::format("s{}", index);
  std::filesystem::create_directories(workspace);
  std::ofstream(workspace / "notes.txt")
      << "The build uses CMake and Ninja.\nTests run with ctest; the parser lives in src/.\n";
  return std::filesystem::canonical(workspace);
}

SessionTimes run_load_session(session::Runtime& runtime, engine::Io& io,
                              const SessionSettings& settings,
                              const std::filesystem::path& workspace, int index) {
  SessionTimes times;
  const llm::ModelSpec spec{llm::ProviderKind::openai_compat, "load"};
  llm::ProviderConfig config;
  config.spec = spec;
  config.base_url = settings.base_url;
  const std::unique_ptr<http::Transport> transport = io.make_transport();
  auto provider = llm::make_provider(config, *transport, io.clock());
  if (!provider) {
    times.error = provider.error().message;
    return times;
  }
  TimedProvider timed(**provider, times);
  session::SessionRequest request{.goal = fmt::format("Summarise notes.txt. [turns={}]{}",
                                                      settings.tool_turns,
                                                      settings.shell ? " [tool=shell]" : ""),
                                  .workspace = workspace,
                                  .session_id = fmt::format("load-{}", index)};
  request.config.model = spec.label();
  request.config.agent.max_steps = settings.tool_turns + 1;
  request.config.agent.stream = settings.stream;
  request.config.store.enabled = settings.store;
  CountingSink sink;
  const auto report = session::run_goal(
      runtime, std::move(request),
      {.io = &io, .model = session::Model{.provider = &timed, .spec = spec}}, sink, CancelToken());
  timed.finish();
  if (!report) {
    times.error = report.error().message;
    return times;
  }
  times.turns = report->steps;
  times.answered = report->status == Status::completed && !report->record_failure;
  if (!times.answered) {
    times.error = report->record_failure ? report->record_failure->message
                  : report->error        ? report->error->message
                                         : report->reason;
  }
  return times;
}

} // namespace ralph::bench
