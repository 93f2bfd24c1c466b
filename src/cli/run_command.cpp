#include "cli/run_command.h"

#include "cli/interrupt.h"
#include "cli/run_report.h"
#include "cli/terminal_view.h"

#include "ralph/agent/react_agent.h"
#include "ralph/core/ids.h"
#include "ralph/http/curl_transport.h"
#include "ralph/llm/factory.h"
#include "ralph/tools/builtin_tools.h"
#include "ralph/tools/process_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace ralph::cli {
namespace {

const char* env(const char* name) {
  return std::getenv(name);
}

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

std::filesystem::path user_config_file() {
  if (const char* xdg = env("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::filesystem::path(xdg) / "ralph" / "config.toml";
  }
  if (const char* home = env("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".config" / "ralph" / "config.toml";
  }
  return {};
}

// Defaults < user file < workspace file < --config < environment < flags.
Result<Config> load_config(const RunArgs& args, const std::filesystem::path& workspace) {
  Config config;
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
    if (auto applied = set_config_value(config, flag.key, flag.value, flag.flag); !applied) {
      return tl::unexpected(applied.error());
    }
  }
  return config;
}

Result<llm::ProviderConfig> provider_config(const Config& config) {
  auto spec = llm::parse_model_spec(config.model);
  if (!spec) {
    return tl::unexpected(spec.error());
  }
  llm::ProviderConfig provider;
  provider.spec = *spec;
  provider.base_url = config.base_url;
  const auto read_key = [](const char* variable) {
    const char* value = env(variable);
    return value == nullptr ? std::string() : std::string(value);
  };
  if (provider.spec.provider == "anthropic") {
    provider.api_key = read_key("ANTHROPIC_API_KEY");
  } else if (provider.spec.provider == "openai" || provider.spec.provider == "openai-compat") {
    provider.api_key = read_key("OPENAI_API_KEY");
    if (provider.base_url.empty() && provider.spec.provider == "openai") {
      provider.base_url = read_key("OPENAI_BASE_URL");
    }
  }
  provider.retry.max_attempts = config.http.max_retries + 1;
  provider.connect_timeout = std::chrono::seconds(config.http.connect_timeout_s);
  provider.idle_timeout = std::chrono::seconds(config.http.idle_timeout_s);
  return provider;
}

Status status_of(agent::AgentStop stop) {
  switch (stop) {
  case agent::AgentStop::answered:
    return Status::completed;
  case agent::AgentStop::max_steps:
    return Status::budget_exhausted;
  case agent::AgentStop::cancelled:
    return Status::interrupted;
  case agent::AgentStop::failed:
    return Status::failed;
  }
  return Status::failed;
}

} // namespace

int run_agent(const RunArgs& args, const Config& config, llm::Provider& provider,
              const std::filesystem::path& workspace, const std::string& banner) {
  CancelToken cancel;
  InterruptHandler interrupt(cancel);
  TerminalView view(stdout, stderr,
                    {.stream_text = !args.json,
                     .progress = !args.quiet,
                     .color = TerminalView::color_wanted(stderr)});
  view.note(banner);

  tools::PosixProcessRunner runner;
  tools::ToolsOptions tool_options;
  tool_options.shell_timeout = std::chrono::seconds(config.tools.shell_timeout_s);
  tool_options.output_limit = static_cast<std::size_t>(config.tools.output_limit);
  const tools::Registry registry = tools::make_builtin_registry(tool_options, runner);

  agent::AgentOptions options;
  options.model = llm::parse_model_spec(config.model).value_or(llm::ModelSpec{}).model;
  options.system_prompt = config.agent.system_prompt;
  options.max_steps = config.agent.max_steps;
  options.max_tokens = config.agent.max_tokens;
  options.temperature = config.agent.temperature;
  options.stream = config.agent.stream;
  tools::ToolContext context;
  context.workspace = workspace;
  context.cancel = cancel;
  agent::ReactAgent agent(provider, registry, context, options, view);

  std::vector<Message> conversation;
  conversation.push_back(Message{.role = Role::user, .content = args.goal});
  const auto started = std::chrono::steady_clock::now();
  const agent::AgentOutcome outcome = agent.run(conversation, cancel);

  RunReport report;
  report.session_id = new_session_id();
  report.status = status_of(outcome.stop);
  report.iterations = 1;
  report.steps = outcome.steps;
  report.tool_calls = outcome.tool_calls;
  report.answer = outcome.answer;
  report.usage = outcome.usage;
  report.error = outcome.error;
  report.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();

  if (report.status == Status::failed && report.error) {
    std::fprintf(stderr, "ralph: error: %s\n", report.error->message.c_str());
  } else if (report.status == Status::interrupted) {
    std::fprintf(stderr, "ralph: interrupted\n");
  } else if (report.status == Status::budget_exhausted) {
    view.note(fmt::format("the step budget ({} model calls) ran out before a final answer; raise "
                          "it with --max-steps",
                          config.agent.max_steps));
  }
  view.note(summary_line(report));
  if (args.json) {
    print_json_report(stdout, report);
  } else if (!view.answer_shown() && !report.answer.empty()) {
    std::fprintf(stdout, "%s\n", report.answer.c_str());
  }
  return exit_code(report.status);
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
  auto provider_settings = provider_config(*config);
  if (!provider_settings) {
    return print_error(provider_settings.error());
  }
  http::CurlTransport transport;
  SystemClock clock;
  auto provider = llm::make_provider(*provider_settings, transport, clock);
  if (!provider) {
    return print_error(provider.error());
  }
  const std::string banner = fmt::format("ralph {} · {} · workspace {}", RALPH_VERSION,
                                         config->model, workspace->string());
  return run_agent(args, *config, **provider, *workspace, banner);
}

} // namespace ralph::cli
