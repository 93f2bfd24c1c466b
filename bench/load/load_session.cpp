#include "load/load_session.h"

#include "counting_sink.h"
#include "journal_observer.h"

#include "ralph/agent/react_agent.h"
#include "ralph/core/redactor.h"
#include "ralph/llm/factory.h"
#include "ralph/loop/store_journal.h"
#include "ralph/store/sqlite_session_store.h"
#include "ralph/tools/builtin_tools.h"

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

SessionTimes run_load_session(engine::Io& io, const SessionSettings& settings,
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
  const tools::Registry registry = tools::make_builtin_registry({}, io.runner());
  const std::string goal = fmt::format("Summarise notes.txt. [turns={}]{}", settings.tool_turns,
                                       settings.shell ? " [tool=shell]" : "");
  std::vector<Message> conversation{{.role = Role::user, .content = goal}};

  CountingSink sink;
  std::unique_ptr<store::SqliteSessionStore> db;
  std::optional<loop::StoreJournal> journal;
  std::optional<JournalObserver> recorder;
  if (settings.store) {
    auto opened = store::SqliteSessionStore::open(workspace / ".ralph" / "ralph.db");
    if (!opened) {
      times.error = opened.error().message;
      return times;
    }
    db = std::move(*opened);
    store::SessionRow row;
    row.id = fmt::format("load-{}", index);
    row.goal = goal;
    row.workspace = workspace.string();
    row.model = spec.label();
    if (auto created = db->create_session(row); !created) {
      times.error = created.error().message;
      return times;
    }
    journal.emplace(*db, row, Redactor(), nullptr, sink);
    journal->attempt_started(1, conversation);
    recorder.emplace(*journal);
  }
  agent::AttemptObserver& observer =
      recorder ? static_cast<agent::AttemptObserver&>(*recorder) : sink;

  agent::ReactAgent agent(timed, registry, {.workspace = workspace}, spec,
                          {.max_steps = settings.tool_turns + 1, .stream = settings.stream});
  const agent::AgentOutcome outcome = agent.run(conversation, CancelToken(), observer, sink);
  timed.finish();
  times.turns = outcome.steps;
  times.answered = outcome.stop == agent::AgentStop::answered;
  if (!times.answered) {
    times.error = outcome.error ? outcome.error->message : to_string(outcome.stop);
  } else if (journal && journal->failure()) {
    times.answered = false;
    times.error = journal->failure()->message;
  }
  return times;
}

} // namespace ralph::bench
