#include "cli/run_command.h"

#include "cli/interrupt.h"
#include "cli/run_report.h"
#include "cli/terminal_view.h"
#include "cli/verifier_setup.h"

#include "ralph/agent/react_agent.h"
#include "ralph/core/ids.h"
#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/loop/store_journal.h"
#include "ralph/store/event_log.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/tools/process_runner.h"
#include "ralph/verify/completion_marker.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace ralph::cli {
namespace {

const char* env(const char* name) {
  return std::getenv(name);
}

} // namespace

int print_error(const Error& error) {
  std::fprintf(stderr, "ralph: error: %s\n", error.message.c_str());
  return error.kind == ErrorKind::usage || error.kind == ErrorKind::config ? 2 : 1;
}

Result<std::filesystem::path> resolve_workspace(const std::string& dir) {
  std::error_code ec;
  const std::filesystem::path path =
      dir.empty() ? std::filesystem::current_path(ec) : std::filesystem::path(dir);
  const auto canonical = std::filesystem::canonical(path, ec);
  if (ec || !std::filesystem::is_directory(canonical, ec)) {
    return fail(ErrorKind::usage, fmt::format("--workspace {}: not a directory", path.string()));
  }
  return canonical;
}

namespace {

std::filesystem::path user_config_file() {
  if (const char* xdg = env("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::filesystem::path(xdg) / "ralph" / "config.toml";
  }
  if (const char* home = env("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".config" / "ralph" / "config.toml";
  }
  return {};
}

} // namespace

Result<Config> load_config(const RunArgs& args, const std::filesystem::path& workspace,
                           const Config& base) {
  Config config = base;
  if (const auto user = user_config_file(); !user.empty()) {
    if (auto applied = apply_config_file(config, user, true); !applied) {
      return tl::unexpected(applied.error());
    }
  }
  if (auto applied = apply_config_file(config, workspace / ".ralph" / "config.toml", true);
      !applied) {
    return tl::unexpected(applied.error());
  }
  if (!args.config_file.empty()) {
    if (auto applied = apply_config_file(config, args.config_file, false); !applied) {
      return tl::unexpected(applied.error());
    }
  }
  if (auto applied = apply_environment(config, env); !applied) {
    return tl::unexpected(applied.error());
  }
  for (const ConfigOverride& flag : args.overrides) {
    auto applied = flag.append ? append_config_value(config, flag.key, flag.value, flag.flag)
                               : set_config_value(config, flag.key, flag.value, flag.flag);
    if (!applied) {
      return tl::unexpected(applied.error());
    }
  }
  return config;
}

namespace {} // namespace

Result<void> check_prices(const Config& config) {
  if (config.budget.max_cost_usd <= 0) {
    return {};
  }
  std::vector<std::string> models{config.model};
  if (!config.judge.model.empty() && config.judge.model != "agent") {
    models.push_back(config.judge.model);
  }
  if (!config.rlm.sub_model.empty()) {
    models.push_back(config.rlm.sub_model);
  }
  for (const auto& model : models) {
    if (config.prices.find(model) == config.prices.end()) {
      return fail(ErrorKind::config,
                  fmt::format("budget.max_cost_usd is set but [prices] has no entry for {}; add "
                              "[prices.\"{}\"] with input and output (USD per million tokens)",
                              model, model));
    }
  }
  return {};
}

namespace {

loop::LoopOptions loop_options(const RunArgs& args, const Config& config,
                               const std::filesystem::path& workspace) {
  loop::LoopOptions options;
  options.goal = args.goal;
  options.agent_model = config.model;
  options.workspace = workspace;
  options.budget.max_iterations = config.loop.max_iterations;
  options.budget.max_tokens = config.budget.max_tokens;
  options.budget.max_cost_usd = config.budget.max_cost_usd;
  options.budget.max_time = std::chrono::seconds(config.budget.max_time_s);
  for (const auto& [model, price] : config.prices) {
    options.prices[model] = loop::Price{price.input, price.output};
  }
  options.feedback = config.loop.feedback == "continue" ? loop::FeedbackMode::continuation
                                                        : loop::FeedbackMode::append;
  const std::string& trigger = config.loop.trigger;
  options.trigger.mode = trigger == "keywords"    ? verify::TriggerMode::keywords
                         : trigger == "marker"    ? verify::TriggerMode::marker
                         : trigger == "heartbeat" ? verify::TriggerMode::heartbeat
                                                  : verify::TriggerMode::always;
  options.trigger.keywords = config.loop.keywords;
  options.trigger.verify_heartbeat = config.loop.verify_heartbeat;
  options.trigger.marker = config.evidence.marker;
  options.heartbeat = config.loop.heartbeat;
  options.verify_final = config.loop.verify_final;
  options.stall_after = config.loop.stall_after;
  options.runtime_summary_chars = static_cast<std::size_t>(config.loop.runtime_summary_chars);
  options.marker = config.evidence.marker;
  options.verifier_first = config.evidence.enabled;
  return options;
}

// Sends each event to every sink, in order.
class Fanout final : public EventSink {
public:
  void add(EventSink& sink) { m_sinks.push_back(&sink); }
  void on_event(const Event& event) override {
    for (EventSink* sink : m_sinks) {
      sink->on_event(event);
    }
  }

private:
  std::vector<EventSink*> m_sinks;
};

} // namespace

int run_agent(const RunArgs& args, const Config& config, llm::Provider& provider,
              const std::filesystem::path& workspace, const std::string& banner,
              SessionContext session) {
  CancelToken cancel;
  InterruptHandler interrupt(cancel);
  tools::PosixProcessRunner runner;
  SystemClock clock;
  auto verifiers = build_verifiers(config, workspace, runner, clock, session.baseline);
  if (!verifiers) {
    return print_error(verifiers.error());
  }

  tools::ToolsOptions tool_options;
  tool_options.shell_timeout = std::chrono::seconds(config.tools.shell_timeout_s);
  tool_options.output_limit = static_cast<std::size_t>(config.tools.output_limit);
  const tools::Registry registry = tools::make_builtin_registry(tool_options, runner);

  agent::AgentOptions options;
  options.model = llm::parse_model_spec(config.model).value_or(llm::ModelSpec{}).model;
  options.system_prompt = config.agent.system_prompt.empty() ? agent::default_system_prompt()
                                                             : config.agent.system_prompt;
  if (config.evidence.enabled) {
    options.system_prompt += verify::completion_instructions(config.evidence.marker);
    if (!config.evidence.instructions.empty()) {
      options.system_prompt += "\n\nHow to verify this goal: " + config.evidence.instructions;
    }
  }
  options.max_steps = config.agent.max_steps;
  options.max_tokens = config.agent.max_tokens;
  options.temperature = config.agent.temperature;
  options.stream = config.agent.stream;
  tools::ToolContext context;
  context.workspace = workspace;
  context.cancel = cancel;
  agent::ReactAgent agent(provider, registry, context, options);

  LoopRun run{.agent = agent, .verifiers = std::move(*verifiers)};
  return run_outer_loop(args, config, workspace, banner, std::move(session), cancel, run);
}

int run_outer_loop(const RunArgs& args, const Config& config,
                   const std::filesystem::path& workspace, const std::string& banner,
                   SessionContext session, const CancelToken& cancel, LoopRun& run) {
  TerminalView view(stdout, stderr,
                    {.stream_text = !args.json && run.stream_text,
                     .progress = !args.quiet,
                     .color = TerminalView::color_wanted(stderr)});
  const std::string session_id = session.existing ? session.existing->id : new_session_id();
  Fanout events;
  events.add(view);
  std::unique_ptr<store::EventLog> event_log;
  if (!args.events_file.empty()) {
    Redactor redactor;
    redactor.add_environment(environ);
    auto opened = store::EventLog::open(args.events_file, session_id, std::move(redactor));
    if (!opened) {
      return print_error(opened.error());
    }
    event_log = std::move(*opened);
    events.add(*event_log);
  }

  // The record: a new session, or the one being resumed, now owned by this process.
  const Redactor redactor = run_redactor();
  std::unique_ptr<store::TraceWriter> traces;
  if (!args.out_dir.empty()) {
    traces = std::make_unique<store::TraceWriter>(args.out_dir);
  }
  std::unique_ptr<loop::StoreJournal> journal;
  if (session.store != nullptr) {
    store::SessionRow row = session.existing
                                ? *session.existing
                                : new_session_row(session_id, args.goal, workspace, config,
                                                  redactor, run.verifiers.baseline);
    Result<void> written;
    if (session.existing) {
      row.status = to_string(Status::active);
      row.owner_pid = getpid();
      row.config_json = redactor.redact(config_to_json(config));
      written = session.store->update_session(row);
    } else {
      written = session.store->create_session(row);
    }
    if (!written) {
      return print_error(written.error());
    }
    journal = std::make_unique<loop::StoreJournal>(*session.store, std::move(row), redactor,
                                                   traces.get(), events);
  }
  view.note(banner);
  for (const auto& warning : run.verifiers.warnings) {
    view.note("warning: " + warning);
  }

  loop::OuterLoop outer(run.agent, std::move(run.verifiers.entries),
                        loop_options(args, config, workspace), journal.get());
  std::vector<Message> conversation;
  loop::LoopState state;
  if (session.resumed) {
    conversation = std::move(session.resumed->conversation);
    state = std::move(session.resumed->state);
  } else {
    conversation.push_back(Message{.role = Role::user, .content = args.goal});
  }
  const loop::LoopResult result = outer.run(conversation, cancel, events, state);

  RunReport report = make_report(session_id, result);
  if (report.status == Status::failed && report.error) {
    std::fprintf(stderr, "ralph: error: %s\n", report.error->message.c_str());
  } else if (report.status == Status::interrupted) {
    std::fprintf(stderr, "ralph: interrupted\n");
  }
  if (journal && journal->failure()) {
    std::fprintf(stderr, "ralph: error: the session record is incomplete: %s\n",
                 journal->failure()->message.c_str());
  }
  if (event_log && !event_log->error().empty()) {
    std::fprintf(stderr, "ralph: warning: %s\n", event_log->error().c_str());
  }
  if (args.json) {
    print_json_report(stdout, report);
  } else if (run.print_answer) {
    run.print_answer(stdout, report);
  } else {
    print_answer(stdout, view, report);
  }
  view.note(summary_line(report));
  return exit_code(report.status);
}

int run_with_provider(const RunArgs& args, const Config& config,
                      const std::filesystem::path& workspace, const std::string& banner,
                      SessionContext session) {
  if (auto priced = check_prices(config); !priced) {
    return print_error(priced.error());
  }
  auto provider_settings = provider_config(config.model, config.base_url, config.http);
  if (!provider_settings) {
    return print_error(provider_settings.error());
  }
  // libcurl (and OpenSSL with it) costs milliseconds and megabytes to start: only runs that
  // talk HTTP pay for it. It must be initialised before any thread starts.
  std::optional<http::CurlGlobal> curl;
  if (provider_settings->spec.provider != "scripted" || !config.judge.model.empty() ||
      config.loop.enabled) {
    curl.emplace();
  }
  http::CurlTransport transport;
  SystemClock clock;
  auto provider = llm::make_provider(*provider_settings, transport, clock);
  if (!provider) {
    return print_error(provider.error());
  }
  return run_agent(args, config, **provider, workspace, banner, std::move(session));
}

int run_command(const RunArgs& args) {
  auto workspace = resolve_workspace(args.workspace);
  if (!workspace) {
    return print_error(workspace.error());
  }
  auto config = load_config(args, *workspace);
  if (!config) {
    return print_error(config.error());
  }
  auto store = open_store(*config, *workspace);
  if (!store) {
    return print_error(store.error());
  }
  const std::string banner = fmt::format("ralph {} · {} · workspace {}", RALPH_VERSION,
                                         config->model, workspace->string());
  SessionContext session;
  session.store = store->get();
  return run_with_provider(args, *config, *workspace, banner, std::move(session));
}

} // namespace ralph::cli
