#include "cli/document_command.h"

#include "cli/run_loop.h"

#include "ralph/core/try.h"
#include "ralph/docqa/document_agents.h"
#include "ralph/docqa/qa_judge.h"
#include "ralph/docqa/task_verifiers.h"
#include "ralph/rlm/mapped_document.h"
#include "ralph/rlm/rlm_agent.h"
#include "ralph/rlm/sub_query.h"

#include <fmt/format.h>

namespace ralph::cli {
namespace {

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

// The RLM explorer of one document, and what it needs: the sandbox factory, the sub-query
// function and the model they use.
struct Explorer {
  rlm::SubQueryFn sub_query;
  rlm::SandboxFactory sandboxes;
  rlm::RlmOptions options;
};

Result<Explorer> explorer(RunContext& context, const Model& model,
                          const rlm::MappedDocument& document, std::string instructions) {
  const Config& config = context.config();
  const std::string sub_model = config.rlm.sub_model.empty() ? config.model : config.rlm.sub_model;
  TRY_ASSIGN(llm::ProviderConfig sub_settings, context.models().settings(sub_model, {}));
  std::string sub_label = sub_settings.spec.label();
  rlm::SubQueryOptions sub_options;
  sub_options.model = sub_settings.spec.model;
  rlm::ProviderFactory factory = context.models().factory(std::move(sub_settings), model);
  sub_options.max_tokens = config.rlm.sub_max_tokens;
  sub_options.cancel = context.cancel();
  const std::string_view text = document.text();
  return Explorer{.sub_query = rlm::provider_sub_query(std::move(factory), std::move(sub_options)),
                  .sandboxes =
                      [text, settings = config.rlm](rlm::SubQueryFn fn) {
                        return rlm::make_lua_sandbox(text, std::move(fn), settings);
                      },
                  .options = rlm::RlmOptions{.model = model.spec,
                                             .sub_model = std::move(sub_label),
                                             .instructions = std::move(instructions),
                                             .document_name = document.path().filename().string(),
                                             .document_bytes = document.size(),
                                             .settings = config.rlm,
                                             .max_tokens = config.agent.max_tokens,
                                             .temperature = config.agent.temperature,
                                             .stream = config.agent.stream}};
}

} // namespace

Result<int> document_command(const RunArgs& args, DocumentMode mode) {
  TRY_ASSIGN(auto context, RunContext::open(args));
  Config& config = context->config();
  std::error_code ec;
  config.document.path = std::filesystem::absolute(args.document, ec).string();
  config.document.mode = mode;
  const std::string banner =
      fmt::format("ralph {} · {} · {} · {} · workspace {}", RALPH_VERSION, to_string(mode),
                  config.model, std::filesystem::path(config.document.path).filename().string(),
                  context->workspace().string());
  return run_document(*context, banner);
}

Result<int> run_document(RunContext& context, const std::string& banner) {
  Config& config = context.config();
  const bool qa = config.document.mode == DocumentMode::qa;
  // Each attempt starts from the question, the last answer and its failures (see QaAgent):
  // the compact continuation prompt would replace the question.
  config.loop.feedback = FeedbackMode::append;
  TRY(check_prices(config));
  auto document = rlm::MappedDocument::open(config.document.path);
  if (!document) {
    return fail(ErrorKind::usage, fmt::format("--doc: {}", document.error().message));
  }
  TRY_ASSIGN(const Model model, context.models().make(config.model));
  const std::string instructions =
      qa ? docqa::qa_instructions(config.qa) : docqa::task_reader_instructions();
  TRY_ASSIGN(Explorer parts, explorer(context, model, *document, instructions));
  rlm::RlmAgent reader(*model.provider, parts.sandboxes, parts.sub_query, parts.options);

  // The run's own verifiers (checks, commands, protected files) apply here too; the judge is the
  // document's judge below.
  TRY_ASSIGN(VerifierSetup verifiers,
             build_verifiers(config, context.workspace(), context.runner(), context.models(),
                             context.session().baseline, false));
  // judge_model() warns (once) when the validator runs on the generator's model or family.
  TRY_ASSIGN(const Model judge, judge_model(config, context.models(), verifiers));

  const docqa::GroundedDocument grounded(parts.options.document_name, document->text());
  const docqa::QaChecker checker(
      grounded,
      docqa::QaRules{.limits = config.qa, .own_prompts = {instructions, context.args().goal}});
  docqa::TaskLedger ledger;
  std::unique_ptr<agent::Agent> agent;
  if (qa) {
    verifiers.entries.push_back(
        {std::make_unique<docqa::QaChecksVerifier>(checker), ErrorPolicy::fail_closed});
    verifiers.entries.push_back(
        {std::make_unique<docqa::QaJudgeVerifier>(*judge.provider, checker, judge.spec,
                                                  config.judge, config.qa.window_chars),
         config.judge.policy});
    agent = std::make_unique<docqa::QaAgent>(reader);
  } else {
    verifiers.entries.push_back({std::make_unique<docqa::TaskChecksVerifier>(ledger, config.task),
                                 ErrorPolicy::fail_closed});
    verifiers.entries.push_back({std::make_unique<docqa::TaskJudgeVerifier>(
                                     *judge.provider, ledger, judge.spec, config.judge),
                                 config.judge.policy});
    docqa::TaskOptions task;
    task.reasoner_model = model.spec;
    task.max_tokens = config.agent.max_tokens;
    if (!config.task.mem_file.empty()) {
      task.memory_file = context.workspace() / config.task.mem_file;
    }
    task.memory_chars = config.task.memory_chars;
    agent = std::make_unique<docqa::TaskAgent>(reader, *model.provider, ledger, task);
  }

  LoopRun run{.agent = *agent, .verifiers = std::move(verifiers), .stream_text = false};
  if (qa) {
    run.print_answer = [&checker](std::FILE* out, const RunReport& report) {
      print_grounded_answer(out, report, checker);
    };
  }
  return run_loop(context, banner, run);
}

} // namespace ralph::cli
