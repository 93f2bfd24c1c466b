#include "agent/cli_invocation.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <algorithm>

namespace ralph::agent {
namespace {

bool mentions(const std::string& arg, std::string_view placeholder) {
  return arg.find(placeholder) != std::string::npos;
}

std::string fill(std::string arg, const CliPlaceholders& values, bool quote) {
  const std::string budget =
      values.budget_usd ? fmt::format("{:.4f}", std::max(0.0, *values.budget_usd)) : "";
  const std::pair<std::string_view, const std::string*> names[] = {
      {"{prompt_file}", &values.prompt_file},
      {"{prompt}", &values.prompt},
      {"{model}", &values.model},
      {"{session}", &values.session},
      {"{ralph_session}", &values.ralph_session},
      {"{budget_usd}", &budget}};
  std::string out;
  std::size_t at = 0;
  while (at < arg.size()) {
    const auto brace = arg.find('{', at);
    if (brace == std::string::npos) {
      break;
    }
    out.append(arg, at, brace - at);
    at = brace;
    const auto* match = std::find_if(std::begin(names), std::end(names), [&](const auto& name) {
      return std::string_view(arg).substr(brace, name.first.size()) == name.first;
    });
    if (match == std::end(names)) {
      out += '{';
      ++at;
      continue;
    }
    out += quote ? shell_quote(*match->second) : *match->second;
    at += match->first.size();
  }
  out.append(arg, at, std::string::npos);
  return out;
}

void join_user_messages(std::string& out, const std::vector<Message>& conversation,
                        std::size_t from) {
  for (std::size_t i = from; i < conversation.size(); ++i) {
    if (conversation[i].role == Role::user && !conversation[i].content.empty()) {
      if (!out.empty()) {
        out += "\n\n";
      }
      out += conversation[i].content;
    }
  }
}

} // namespace

CliPrompt next_prompt(const std::vector<Message>& conversation, bool can_continue) {
  const auto last_answer = std::find_if(conversation.rbegin(), conversation.rend(),
                                        [](const Message& m) { return m.role == Role::assistant; });
  CliPrompt prompt;
  if (last_answer == conversation.rend()) {
    join_user_messages(prompt.text, conversation, 0);
    prompt.has_feedback = std::count_if(conversation.begin(), conversation.end(),
                                        [](const auto& m) { return m.role == Role::user; }) > 1;
    return prompt;
  }
  const auto since = static_cast<std::size_t>(conversation.rend() - last_answer);
  prompt.has_feedback = true;
  if (can_continue) {
    prompt.continues = true;
    join_user_messages(prompt.text, conversation, since);
    return prompt;
  }
  // A fresh process knows nothing of the earlier attempts: the goal, the last answer, and what
  // it was told about it.
  const auto goal = std::find_if(conversation.begin(), conversation.end(),
                                 [](const Message& m) { return m.role == Role::user; });
  std::string feedback;
  join_user_messages(feedback, conversation, since);
  prompt.text = fmt::format("{}\n\n---\nYour previous attempt answered:\n\n{}\n\n---\n{}",
                            goal != conversation.end() ? goal->content : std::string(),
                            last_answer->content, feedback);
  return prompt;
}

std::vector<std::string> cli_argv(const CommandAgentOptions& options, bool resume,
                                  const CliPlaceholders& values) {
  const AgentPreset& preset = options.preset;
  std::vector<std::string> argv = resume ? preset.resume : preset.command;
  std::vector<std::string> extra;
  if (!values.model.empty()) {
    extra.insert(extra.end(), preset.model_args.begin(), preset.model_args.end());
  }
  if (values.budget_usd) {
    extra.insert(extra.end(), preset.budget_args.begin(), preset.budget_args.end());
  }
  extra.insert(extra.end(), options.extra_args.begin(), options.extra_args.end());
  if (options.shell_line && argv.size() == 3) {
    // Only the line itself is read by the shell: placeholders and arguments quoted into it.
    argv[2] = fill(std::move(argv[2]), values, true);
    for (const std::string& arg : extra) {
      argv[2] += ' ' + shell_quote(fill(arg, values, false));
    }
    return argv;
  }
  // CLIs read options before a `resume` subcommand (Codex), a positional prompt or the `-` that
  // names stdin.
  auto at = std::find(argv.begin(), argv.end(), "resume");
  if (at == argv.end() && argv.size() > 1 &&
      (argv.back() == "-" || mentions(argv.back(), "{prompt"))) {
    at = std::prev(argv.end());
  }
  argv.insert(at, extra.begin(), extra.end());
  for (std::string& arg : argv) {
    arg = fill(std::move(arg), values, false);
  }
  return argv;
}

bool takes_prompt_in_argv(const std::vector<std::string>& argv_template) {
  return std::any_of(argv_template.begin(), argv_template.end(),
                     [](const std::string& arg) { return mentions(arg, "{prompt"); });
}

bool needs_prompt_file(const std::vector<std::string>& argv_template) {
  return std::any_of(argv_template.begin(), argv_template.end(),
                     [](const std::string& arg) { return mentions(arg, "{prompt_file}"); });
}

} // namespace ralph::agent
