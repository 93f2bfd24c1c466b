#include "ralph/rlm/sub_query.h"

#include "ralph/core/text.h"
#include "ralph/core/try.h"

#include <fmt/format.h>

#include <utility>

namespace ralph::rlm {
namespace {

constexpr std::string_view k_system_prompt =
    "You answer one question about an excerpt of a document. Use only the context given; do not "
    "rely on outside knowledge. When the context does not contain the answer, say so plainly "
    "instead of guessing. Be concise, and quote the context exactly when asked for quotes.";

// Document bytes are not checked as UTF-8, and code slices them at any byte: repair what a JSON
// request cannot carry.
std::string json_safe(std::string text) {
  return is_valid_utf8(text) ? std::move(text) : to_valid_utf8(text);
}

std::string user_message(const SubQuery& query, std::size_t max_context_bytes) {
  if (query.context.empty()) {
    return fmt::format("Context: (none given)\n\nQuestion: {}", json_safe(query.query));
  }
  return fmt::format("Context:\n<<<\n{}\n>>>\n\nQuestion: {}",
                     json_safe(keep_head_and_tail(query.context, max_context_bytes)),
                     json_safe(query.query));
}

} // namespace

SubQueryFn provider_sub_query(ProviderFactory make_provider, SubQueryOptions options) {
  return [make_provider = std::move(make_provider),
          options = std::move(options)](const SubQuery& query) -> Result<SubAnswer> {
    if (options.cancel.cancelled()) {
      return fail(ErrorKind::cancelled, "interrupted");
    }
    TRY_ASSIGN(const std::unique_ptr<llm::Provider> provider, make_provider());
    const std::vector<Message> messages = {
        Message{.role = Role::user, .content = user_message(query, options.max_context_bytes)}};
    llm::ChatRequest request;
    request.model = options.model;
    request.system = std::string(k_system_prompt);
    request.messages = messages;
    request.max_tokens = options.max_tokens;
    request.temperature = options.temperature;
    request.stream = false;
    TRY_ASSIGN(llm::ChatResponse response, provider->chat(request, nullptr, options.cancel));
    if (trim(response.message.content).empty()) {
      return fail(ErrorKind::provider,
                  fmt::format("the sub-query model gave an empty answer (stop reason: {})",
                              llm::to_string(response.stop_reason)));
    }
    return SubAnswer{std::move(response.message.content), response.usage};
  };
}

} // namespace ralph::rlm
