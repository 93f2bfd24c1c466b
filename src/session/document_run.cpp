#include "document_run.h"

#include "ralph/core/try.h"
#include "ralph/docqa/document_agents.h"
#include "ralph/docqa/qa_judge.h"
#include "ralph/docqa/task_verifiers.h"
#include "ralph/rlm/mapped_document.h"
#include "ralph/rlm/rlm_agent.h"
#include "ralph/rlm/sub_query.h"

#include <fmt/format.h>

namespace ralph::session {

struct DocumentRun::Parts {
  explicit Parts(rlm::MappedDocument mapped) : document(std::move(mapped)) {}

  rlm::MappedDocument document;
  Model model;
  rlm::SubQueryFn sub_query;
  rlm::SandboxFactory sandboxes;
  rlm::RlmOptions options;
  std::unique_ptr<rlm::RlmAgent> reader;
  std::unique_ptr<docqa::GroundedDocument> grounded;
  std::unique_ptr<docqa::QaChecker> checker;
  docqa::TaskLedger ledger;
  bool qa = false;
};

namespace {

// The RLM explorer of the document: the sandbox factory, the sub-query function and the model
// they use.
Result<void> make_explorer(DocumentRun::Parts& parts, const Config& config, ModelProviders& models,
                           const CancelToken& cancel, std::string instructions) {
  const std::string sub_model = config.rlm.sub_model.empty() ? config.model : config.rlm.sub_model;
  TRY_ASSIGN(llm::ProviderConfig sub_settings, models.settings(sub_model, {}));
  std::string sub_label = sub_settings.spec.label();
  rlm::SubQueryOptions sub_options;
  sub_options.model = sub_settings.spec.model;
  rlm::ProviderFactory factory = models.factory(std::move(sub_settings), parts.model);
  sub_options.max_tokens = config.rlm.sub_max_tokens;
  sub_options.cancel = cancel;
  const std::string_view text = parts.document.text();
  parts.sub_query = rlm::provider_sub_query(std::move(factory), std::move(sub_options));
  parts.sandboxes = [text, settings = config.rlm](rlm::SubQueryFn fn) {
    return rlm::make_lua_sandbox(text, std::move(fn), settings);
  };
  parts.options = rlm::RlmOptions{.model = parts.model.spec,
                                  .sub_model = std::move(sub_label),
                                  .instructions = std::move(instructions),
                                  .document_name = parts.document.path().filename().string(),
                                  .document_bytes = parts.document.size(),
                                  .settings = config.rlm,
                                  .max_tokens = config.agent.max_tokens,
                                  .temperature = config.agent.temperature,
                                  .stream = config.agent.stream};
  return {};
}

} // namespace

DocumentRun::DocumentRun() = default;
DocumentRun::~DocumentRun() = default;

const docqa::QaChecker* DocumentRun::qa_checker() const {
  return m_parts->qa ? m_parts->checker.get() : nullptr;
}

Result<std::unique_ptr<DocumentRun>> DocumentRun::prepare(
    Config& config, const std::filesystem::path& workspace, const std::string& goal,
    ModelProviders& models, tools::ProcessRunner& runner, const CancelToken& cancel,
    const std::optional<verify::ProtectedSnapshot>& baseline, const Redactor& redactor) {
  const bool qa = config.document.mode == DocumentMode::qa;
  config.loop.feedback = FeedbackMode::append;
  auto mapped = rlm::MappedDocument::open(config.document.path);
  if (!mapped) {
    return fail(ErrorKind::usage, fmt::format("--doc: {}", mapped.error().message));
  }
  std::unique_ptr<DocumentRun> run(new DocumentRun());
  run->m_parts = std::make_unique<Parts>(std::move(*mapped));
  Parts& parts = *run->m_parts;
  parts.qa = qa;
  TRY_ASSIGN(parts.model, models.make(config.model));
  const std::string instructions =
      qa ? docqa::qa_instructions(config.qa) : docqa::task_reader_instructions();
  TRY(make_explorer(parts, config, models, cancel, instructions));
  parts.reader = std::make_unique<rlm::RlmAgent>(*parts.model.provider, parts.sandboxes,
                                                 parts.sub_query, parts.options);

  // The run's own verifiers (checks, commands, protected files) apply here too; the judge is the
  // document's judge below.
  TRY_ASSIGN(run->m_verifiers,
             build_verifiers(config, workspace, runner, models, baseline, false, redactor));
  // judge_model() warns (once) when the validator runs on the generator's model or family.
  TRY_ASSIGN(const Model judge, judge_model(config, models, run->m_verifiers));

  parts.grounded =
      std::make_unique<docqa::GroundedDocument>(parts.options.document_name, parts.document.text());
  parts.checker = std::make_unique<docqa::QaChecker>(
      *parts.grounded, docqa::QaRules{.limits = config.qa, .own_prompts = {instructions, goal}});
  auto& entries = run->m_verifiers.entries;
  if (qa) {
    entries.push_back(
        {std::make_unique<docqa::QaChecksVerifier>(*parts.checker), ErrorPolicy::fail_closed});
    entries.push_back(
        {std::make_unique<docqa::QaJudgeVerifier>(*judge.provider, *parts.checker, judge.spec,
                                                  config.judge, config.qa.window_chars),
         config.judge.policy});
    run->m_agent = std::make_unique<docqa::QaAgent>(*parts.reader);
    return run;
  }
  entries.push_back({std::make_unique<docqa::TaskChecksVerifier>(parts.ledger, config.task),
                     ErrorPolicy::fail_closed});
  entries.push_back({std::make_unique<docqa::TaskJudgeVerifier>(*judge.provider, parts.ledger,
                                                                judge.spec, config.judge),
                     config.judge.policy});
  docqa::TaskOptions task;
  task.reasoner_model = parts.model.spec;
  task.max_tokens = config.agent.max_tokens;
  if (!config.task.mem_file.empty()) {
    task.memory_file = workspace / config.task.mem_file;
  }
  task.memory_chars = config.task.memory_chars;
  run->m_agent =
      std::make_unique<docqa::TaskAgent>(*parts.reader, *parts.model.provider, parts.ledger, task);
  return run;
}

} // namespace ralph::session
