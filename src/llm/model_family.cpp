#include "ralph/llm/provider_config.h"

#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace ralph::llm {
namespace {

// Name prefixes of the model families people run, after any "vendor/" or "vendor." part of the
// name (OpenRouter's "anthropic/claude-…", Bedrock's "anthropic.claude-…").
constexpr std::array<std::pair<std::string_view, std::string_view>, 22> k_prefixes{{
    {"claude", "anthropic"}, {"gpt", "openai"},        {"chatgpt", "openai"},
    {"o1", "openai"},        {"o3", "openai"},         {"o4", "openai"},
    {"codex", "openai"},     {"gemini", "google"},     {"gemma", "google"},
    {"llama", "meta"},       {"codellama", "meta"},    {"mistral", "mistral"},
    {"mixtral", "mistral"},  {"codestral", "mistral"}, {"devstral", "mistral"},
    {"qwen", "qwen"},        {"qwq", "qwen"},          {"deepseek", "deepseek"},
    {"grok", "xai"},         {"phi", "microsoft"},     {"command", "cohere"},
    {"kimi", "moonshot"},
}};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

} // namespace

std::string_view model_family(const ModelSpec& spec) {
  std::string name = lower(spec.model);
  if (const std::size_t slash = name.find_last_of('/'); slash != std::string::npos) {
    name.erase(0, slash + 1);
  }
  for (const std::string_view vendor : {"anthropic.", "meta.", "mistral.", "cohere.", "amazon."}) {
    if (name.starts_with(vendor)) {
      name.erase(0, vendor.size());
    }
  }
  for (const auto& [prefix, family] : k_prefixes) {
    // "o1" must not take "o1x-custom": after a prefix ending in a digit, a letter continues it.
    if (name.starts_with(prefix) &&
        (name.size() == prefix.size() ||
         std::isdigit(static_cast<unsigned char>(prefix.back())) == 0 ||
         std::isalpha(static_cast<unsigned char>(name[prefix.size()])) == 0)) {
      return family;
    }
  }
  switch (spec.provider) {
  case ProviderKind::anthropic:
    return "anthropic";
  case ProviderKind::openai:
  case ProviderKind::openai_responses:
    return "openai";
  default:
    return {};
  }
}

} // namespace ralph::llm
