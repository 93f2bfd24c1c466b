#include "rlm/rlm_prompt.h"

#include "ralph/core/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ralph::rlm {
namespace {

std::string human_size(std::size_t bytes) {
  constexpr double k_kib = 1024.0;
  const auto value = static_cast<double>(bytes);
  if (value >= k_kib * k_kib) {
    return fmt::format("{} bytes, {:.1f} MiB", bytes, value / (k_kib * k_kib));
  }
  if (value >= k_kib) {
    return fmt::format("{} bytes, {:.1f} KiB", bytes, value / k_kib);
  }
  return fmt::format("{} bytes", bytes);
}

std::string with_instructions(const RlmOptions& options, std::string_view rest) {
  if (trim(options.instructions).empty()) {
    return std::string(rest);
  }
  return fmt::format("{}\n\n{}", trim(options.instructions), rest);
}

} // namespace

std::string rlm_system_prompt(const RlmOptions& options, std::string_view language) {
  const std::string rlm = fmt::format(
      "# How to work: the document is in a sandbox\n"
      "The document \"{name}\" ({size}) is NOT in this conversation, and you cannot see it "
      "directly. It is loaded in a {language} sandbox; the only way to read it is to write "
      "{language} code and run it with the `{language}` tool (its description lists the API).\n"
      "- Explore with code: look at the size and the beginning, search for keywords and "
      "patterns, find the structure (headings, sections, records), then narrow down.\n"
      "- Print only what you need to see: counts, positions, short excerpts. Output is truncated, "
      "so never print the whole document or large slices.\n"
      "- For semantic work (understanding, summarising, classifying, finding an answer in prose) "
      "call llm_query on slices of the document (batched for many slices) instead of reading "
      "everything yourself. This attempt allows {sub_queries} sub-queries; spend them on "
      "well-chosen slices.\n"
      "- Variables persist between runs: keep intermediate results in them.\n"
      "- You have {steps} turns in this attempt; run several steps in one piece of code when you "
      "can.\n"
      "- Ground the answer in the document: take facts and quotes from what your code printed or "
      "what sub-queries returned, and copy quotes exactly.\n"
      "- When you have what you need, give the final answer as a plain message, without calling "
      "the tool.",
      fmt::arg("name", options.document_name), fmt::arg("size", human_size(options.document_bytes)),
      fmt::arg("language", language), fmt::arg("sub_queries", options.settings.max_sub_queries),
      fmt::arg("steps", options.settings.max_steps));
  return with_instructions(options, rlm);
}

ToolSpec code_tool(std::string_view language, std::string_view api_description) {
  ToolSpec spec;
  spec.name = std::string(language);
  spec.description = fmt::format(
      "Runs {0} code in the sandbox that holds the document and returns what it printed, then "
      "the value it returned, then any error (truncated when long). Globals persist between "
      "runs.\n\n{1}",
      language, trim(api_description));
  const nlohmann::json parameters = {
      {"type", "object"},
      {"properties",
       {{"code",
         {{"type", "string"}, {"description", fmt::format("the {} code to run", language)}}}}},
      {"required", {"code"}}};
  spec.parameters = parameters.dump();
  return spec;
}

std::string fallback_system_prompt(const RlmOptions& options) {
  return with_instructions(
      options,
      "# Finishing from an exploration record\n"
      "An exploration of a document ran out of steps before it gave its final answer. You get "
      "the request and the record of that exploration: the code that was run against the "
      "document and what it printed. The document itself is no longer available and there are no "
      "tools. Give the best final answer the record supports, in the required format. Use only "
      "facts and quotes that appear in the record, copy quotes exactly, and say plainly what the "
      "record leaves open rather than guessing.");
}

std::string fallback_user_message(std::span<const Message> conversation, const RlmOptions& options,
                                  std::string_view trajectory) {
  std::string request;
  std::string feedback;
  for (const Message& message : conversation) {
    if (message.role != Role::user) {
      continue;
    }
    if (request.empty()) {
      request = message.content;
      continue;
    }
    feedback += fmt::format("\n{}\n", trim(message.content));
  }
  std::string text = fmt::format("## Request\n{}\n", trim(request));
  if (!feedback.empty()) {
    text += fmt::format("\n## Feedback given since\n{}", feedback);
  }
  text += fmt::format("\n## Exploration record of the document \"{}\"\n{}\n", options.document_name,
                      trajectory);
  text += "\nThe exploration ran out of steps. Give your best final answer to the request now, "
          "grounded in the record above, in the required format.";
  return text;
}

} // namespace ralph::rlm
