#pragma once

// A provider for docqa's unit tests: answers from a queue and keeps every request it got.
#include "ralph/llm/provider.h"

#include <deque>
#include <string>
#include <vector>

namespace ralph::docqa::testing {

struct SeenRequest {
  std::string system;
  std::vector<Message> messages;
  std::optional<std::string> json_schema;
  bool has_tools = false;
};

class RecordingProvider final : public llm::Provider {
public:
  void push(std::string text) { m_answers.emplace_back(std::move(text)); }
  void push_error(Error error) { m_answers.emplace_back(tl::unexpected(std::move(error))); }

  Result<llm::ChatResponse> chat(const llm::ChatRequest& request, llm::StreamObserver* /*observer*/,
                                 const CancelToken& /*cancel*/) override {
    requests.push_back({request.system,
                        std::vector<Message>(request.messages.begin(), request.messages.end()),
                        request.json_schema, !request.tools.empty()});
    if (m_answers.empty()) {
      return fail(ErrorKind::provider, "no answer queued");
    }
    Result<std::string> next = std::move(m_answers.front());
    m_answers.pop_front();
    if (!next) {
      return tl::unexpected(next.error());
    }
    llm::ChatResponse response;
    response.message = Message{.role = Role::assistant, .content = *next};
    response.stop_reason = llm::StopReason::end_turn;
    response.usage = {.input_tokens = 100, .output_tokens = 10};
    return response;
  }
  std::string_view name() const override { return "recording"; }

  std::vector<SeenRequest> requests;

private:
  std::deque<Result<std::string>> m_answers;
};

} // namespace ralph::docqa::testing
