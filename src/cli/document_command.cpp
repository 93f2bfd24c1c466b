#include "cli/document_command.h"

#include "cli/interrupt.h"
#include "cli/run_command.h"
#include "cli/terminal_view.h"

#include "ralph/core/clock.h"
#include "ralph/docqa/document_agents.h"
#include "ralph/docqa/qa_judge.h"
#include "ralph/docqa/task_verifiers.h"
#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"
#include "ralph/rlm/mapped_document.h"
#include "ralph/rlm/rlm_agent.h"
#include "ralph/rlm/sub_query.h"
#include "ralph/tools/process_runner.h"

#include <fmt/format.h>

#include <mutex>
#include <optional>

namespace ralph::cli {
namespace {

// A scripted model replays one script: sub-queries share the agent's instance (one at a time)
// so that a script can hold the whole run in order.
class SharedProvider final : public llm::Provider {
public:
  SharedProvider(llm::Provider& provider, std::mutex& mutex)
      : m_provider(provider), m_mutex(mutex) {}
  Result<llm::ChatResponse> chat(const llm::ChatRequest& request, llm::StreamObserver* observer,
                                 const CancelToken& cancel) override {
    const std::lock_guard lock(m_mutex);
    return m_provider.chat(request, observer, cancel);
  }
  std::string_view name() const override { return m_provider.name(); }

private:
  llm::Provider& m_provider;
  std::mutex& m_mutex;
};

docqa::QaRules qa_rules(const Config& config) {
  docqa::QaRules rules;
  rules.min_bullets = static_cast<std::size_t>(config.qa.min_bullets);
  rules.max_bullets = static_cast<std::size_t>(config.qa.max_bullets);
  rules.min_quotes = static_cast<std::size_t>(config.qa.min_quotes);
  rules.max_quotes = static_cast<std::size_t>(config.qa.max_quotes);
  rules.max_quote_chars = static_cast<std::size_t>(config.qa.max_quote_chars);
  rules.min_quote_words = static_cast<std::size_t>(config.qa.min_quote_words);
  rules.min_quote_chars = static_cast<std::size_t>(config.qa.min_quote_chars);
  rules.loosest =
      docqa::parse_match_level(config.qa.match_level).value_or(docqa::MatchLevel::whitespace);
  return rules;
}

// The grounded answer for a person: the bullets, then each quote with where it occurs.
void print_grounded_answer(std::FILE* out, const RunReport& report,
                           const docqa::QaChecker& checker) {
  const docqa::GroundedDocument& document = checker.document();
  const docqa::QaReport checked = checker.check(report.answer);
  if (!checked.answer) {
    fmt::print(out, "{}\n", report.answer);
  } else {
    fmt::print(out, "Answer:\n");
    for (const std::string& bullet : checked.answer->bullets) {
      fmt::print(out, "  - {}\n", bullet);
    }
    fmt::print(out, "\nEvidence from {}:\n", document.name());
    for (std::size_t i = 0; i < checked.quotes.size(); ++i) {
      const docqa::QuoteReport& quote = checked.quotes[i];
      std::string where = "not found in the document";
      if (quote.match.level && !quote.match.occurrences.empty()) {
        const docqa::Span first = quote.match.occurrences.front();
        const docqa::Location at = docqa::locate(document.text(), first.begin);
        where = fmt::format("line {}, column {} (bytes {}-{}, {} match{})", at.line, at.column,
                            first.begin, first.end, to_string(*quote.match.level),
                            quote.match.occurrences.size() > 1
                                ? fmt::format(", {} occurrences", quote.match.occurrences.size())
                                : "");
      }
      fmt::print(out, "  {}. \"{}\"\n     {}\n", i + 1, quote.quote, where);
    }
  }
  if (!report.notice.empty()) {
    fmt::print(out, "\n{}\n", report.notice);
  }
  std::fflush(out);
}

bool all_scripted(const Config& config) {
  for (const std::string& model : {config.model, config.judge.model, config.rlm.sub_model}) {
    if (!model.empty() && model != "agent" && model.rfind("scripted/", 0) != 0) {
      return false;
    }
  }
  return true;
}

} // namespace

int document_command(const RunArgs& args, DocumentMode mode) {
  auto workspace = resolve_workspace(args.workspace);
  if (!workspace) {
    return print_error(workspace.error());
  }
  auto config = load_config(args, *workspace);
  if (!config) {
    return print_error(config.error());
  }
  std::error_code ec;
  const std::filesystem::path path = std::filesystem::absolute(args.document, ec);
  config->document.path = path.string();
  config->document.mode = mode == DocumentMode::qa ? "qa" : "task";
  auto store = open_store(*config, *workspace);
  if (!store) {
    return print_error(store.error());
  }
  const std::string banner =
      fmt::format("ralph {} · {} · {} · {} · workspace {}", RALPH_VERSION, config->document.mode,
                  config->model, path.filename().string(), workspace->string());
  SessionContext session;
  session.store = store->get();
  return run_document(args, std::move(*config), *workspace, banner, std::move(session));
}

int run_document(const RunArgs& args, Config config, const std::filesystem::path& workspace,
                 const std::string& banner, SessionContext session) {
  const DocumentMode mode = config.document.mode == "qa" ? DocumentMode::qa : DocumentMode::task;
  // Each attempt starts from the question, the last answer and its failures (see QaAgent):
  // the compact continuation prompt would replace the question.
  config.loop.feedback = "append";
  if (auto priced = check_prices(config); !priced) {
    return print_error(priced.error());
  }
  auto document = rlm::MappedDocument::open(config.document.path);
  if (!document) {
    return print_error(Error{.kind = ErrorKind::usage,
                             .message = fmt::format("--doc: {}", document.error().message)});
  }
  auto agent_settings = provider_config(config.model, config.base_url, config.http);
  if (!agent_settings) {
    return print_error(agent_settings.error());
  }
  std::optional<http::CurlGlobal> curl;
  if (!all_scripted(config)) {
    curl.emplace();
  }
  SystemClock clock;
  http::CurlTransport transport;
  auto provider = llm::make_provider(*agent_settings, transport, clock);
  if (!provider) {
    return print_error(provider.error());
  }

  // llm_query's model: its own provider per call, or the agent's shared one when scripted.
  const std::string sub_model = config.rlm.sub_model.empty() ? config.model : config.rlm.sub_model;
  const auto sub_spec = llm::parse_model_spec(sub_model);
  const bool same_server = sub_spec && sub_spec->provider == agent_settings->spec.provider;
  auto sub_settings =
      provider_config(sub_model, same_server ? config.base_url : std::string(), config.http);
  if (!sub_settings) {
    return print_error(sub_settings.error());
  }
  std::mutex shared_mutex;
  rlm::ProviderFactory factory;
  if (sub_settings->spec.provider == "scripted") {
    factory = [&]() -> Result<std::unique_ptr<llm::Provider>> {
      return std::make_unique<SharedProvider>(**provider, shared_mutex);
    };
  } else {
    factory = rlm::provider_factory(*sub_settings, clock);
  }
  CancelToken cancel;
  InterruptHandler interrupt(cancel);
  rlm::SubQueryOptions sub_options;
  sub_options.model = sub_settings->spec.model;
  sub_options.max_tokens = config.rlm.sub_max_tokens;
  sub_options.cancel = cancel;
  rlm::SubQueryFn sub_query = rlm::provider_sub_query(factory, sub_options);

  rlm::SandboxLimits limits;
  limits.memory_bytes = static_cast<std::size_t>(config.rlm.memory_mb) << 20U;
  limits.time_limit = std::chrono::seconds(config.rlm.time_limit_s);
  limits.output_chars = static_cast<std::size_t>(config.rlm.output_chars);
  limits.max_concurrent_queries = config.rlm.concurrency;
  const std::string_view text = document->text();
  rlm::SandboxFactory sandboxes = [text, limits](rlm::SubQueryFn fn) {
    return rlm::make_lua_sandbox(text, std::move(fn), limits);
  };

  docqa::QaRules rules = qa_rules(config);
  const std::string document_name = document->path().filename().string();
  rlm::RlmOptions rlm_options;
  rlm_options.model = agent_settings->spec.model;
  rlm_options.instructions =
      mode == DocumentMode::qa ? docqa::qa_instructions(rules) : docqa::task_reader_instructions();
  rlm_options.document_name = document_name;
  rlm_options.document_bytes = document->size();
  rlm_options.max_steps = config.rlm.max_steps;
  rlm_options.max_sub_queries = config.rlm.max_sub_queries;
  rlm_options.max_tokens = config.agent.max_tokens;
  rlm_options.temperature = config.agent.temperature;
  rlm_options.stream = config.agent.stream;
  rlm::RlmAgent explorer(**provider, sandboxes, sub_query, rlm_options);

  // The run's own verifiers (checks, commands, protected files) apply here too; the judge is the
  // document judge below.
  Config generic = config;
  generic.judge.model.clear();
  generic.loop.enabled = false;
  tools::PosixProcessRunner runner;
  auto verifiers = build_verifiers(generic, workspace, runner, clock, session.baseline);
  if (!verifiers) {
    return print_error(verifiers.error());
  }
  if (config.judge.model.empty()) {
    verifiers->warnings.emplace_back(
        "no --judge given: the validator runs on the generator's model; a model of another family "
        "(e.g. --judge anthropic/claude-sonnet-4-5) checks more independently");
  }
  auto judge = add_judge_model(*verifiers, config,
                               config.judge.model.empty() ? "agent" : config.judge.model, clock);
  if (!judge) {
    return print_error(judge.error());
  }
  const loop::ErrorPolicy judge_policy = config.judge.policy == "fail_closed"
                                             ? loop::ErrorPolicy::fail_closed
                                             : loop::ErrorPolicy::fail_open;

  const docqa::GroundedDocument grounded(document_name, text);
  rules.own_prompts = {rlm_options.instructions, args.goal};
  const docqa::QaChecker checker(grounded, rules);
  docqa::TaskLedger ledger;
  std::unique_ptr<agent::Agent> agent;
  if (mode == DocumentMode::qa) {
    docqa::QaJudgeOptions judge_options;
    judge_options.model = judge->model;
    judge_options.model_label = judge->label;
    judge_options.max_tokens = config.judge.max_tokens;
    judge_options.timeout = std::chrono::seconds(config.judge.timeout_s);
    judge_options.structured = config.judge.structured;
    judge_options.window_chars = static_cast<std::size_t>(config.qa.window_chars);
    judge_options.context_chars = static_cast<std::size_t>(config.judge.context_chars);
    verifiers->entries.push_back(
        {std::make_unique<docqa::QaChecksVerifier>(checker), loop::ErrorPolicy::fail_closed});
    verifiers->entries.push_back(
        {std::make_unique<docqa::QaJudgeVerifier>(*judge->provider, checker, judge_options),
         judge_policy});
    agent = std::make_unique<docqa::QaAgent>(explorer);
  } else {
    docqa::TaskOptions task_options;
    task_options.reasoner_model = agent_settings->spec.model;
    task_options.max_tokens = config.agent.max_tokens;
    if (!config.task.mem_file.empty()) {
      task_options.memory_file = workspace / config.task.mem_file;
    }
    task_options.memory_chars = static_cast<std::size_t>(config.task.memory_chars);
    docqa::TaskChecksOptions checks;
    checks.min_output_chars = static_cast<std::size_t>(config.task.min_output_chars);
    checks.min_memory_chars = task_options.memory_file.empty()
                                  ? 0
                                  : static_cast<std::size_t>(config.task.min_memory_chars);
    docqa::TaskJudgeOptions judge_options;
    judge_options.model = judge->model;
    judge_options.model_label = judge->label;
    judge_options.max_tokens = config.judge.max_tokens;
    judge_options.timeout = std::chrono::seconds(config.judge.timeout_s);
    judge_options.structured = config.judge.structured;
    judge_options.context_chars = static_cast<std::size_t>(config.judge.context_chars);
    verifiers->entries.push_back({std::make_unique<docqa::TaskChecksVerifier>(ledger, checks),
                                  loop::ErrorPolicy::fail_closed});
    verifiers->entries.push_back(
        {std::make_unique<docqa::TaskJudgeVerifier>(*judge->provider, ledger, judge_options),
         judge_policy});
    agent = std::make_unique<docqa::TaskAgent>(explorer, **provider, ledger, task_options);
  }

  LoopRun run{.agent = *agent, .verifiers = std::move(*verifiers), .stream_text = false};
  if (mode == DocumentMode::qa) {
    run.print_answer = [&checker](std::FILE* out, const RunReport& report) {
      print_grounded_answer(out, report, checker);
    };
  }
  return run_outer_loop(args, config, workspace, banner, std::move(session), cancel, run);
}

} // namespace ralph::cli
