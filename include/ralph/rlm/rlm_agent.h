#pragma once

#include "ralph/agent/agent.h"
#include "ralph/core/settings.h"
#include "ralph/llm/provider.h"
#include "ralph/llm/provider_config.h"
#include "ralph/rlm/sandbox.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ralph::rlm {

struct RlmOptions {
  llm::ModelSpec model;  // the model the provider serves
  std::string sub_model; // "provider/model" that answers llm_query (what its tokens cost); empty:
                         // the agent's model
  // What the attempt must produce (the answer format, the task); the sandbox's instructions and
  // API are added after it.
  std::string instructions;
  std::string document_name;      // shown to the model, e.g. "contract.txt"
  std::size_t document_bytes = 0; // shown to the model
  // `max_steps` model calls per attempt (the fallback extraction excluded) and
  // `max_sub_queries` llm_query calls, with a warning at 80 %.
  RlmSettings settings;
  int max_tokens = 4096; // of each model call
  std::optional<double> temperature;
  bool stream = true;
  // What the fallback extraction call is shown of the trajectory (code points, newest kept).
  std::size_t fallback_trajectory_chars = 24000;
};

// Builds the sandbox of one attempt around the sub-query function it must use (the agent wraps
// the caller's function to count and bound sub-queries).
using SandboxFactory = std::function<std::unique_ptr<Sandbox>(SubQueryFn)>;

// The RLM inner loop: the document stays in the sandbox; the model explores it by running code
// (one tool, named after the sandbox's language) and asks sub-queries from that code, until it
// answers without a tool call. Each attempt gets a fresh sandbox and sub-query budget. When the
// steps run out, one fallback extraction call (no tools) over the recorded trajectory gives the
// best grounded answer it can, and the attempt ends `answered` with it, so the outer loop
// verifies it like any answer; if that call fails too the attempt ends `failed` with the error.
// Each execution is a tool call reported to the observer with its output; sub-query tokens count
// into the outcome and are reported as a model call on `sub_model` after each execution (so
// budgets see them, priced as that model); the 80 % sub-query warning is a budget_warning event
// (`sub_queries`). `provider` must outlive the agent. Not thread-safe.
class RlmAgent final : public agent::Agent {
public:
  RlmAgent(llm::Provider& provider, SandboxFactory sandboxes, SubQueryFn sub_query,
           RlmOptions options);

  agent::AgentOutcome run(std::vector<Message>& conversation, const CancelToken& cancel,
                          agent::AttemptObserver& observer, EventSink& events) override;

private:
  llm::Provider& m_provider;
  SandboxFactory m_sandboxes;
  SubQueryFn m_sub_query;
  RlmOptions m_options;
};

} // namespace ralph::rlm
