#pragma once

#include "ralph/core/config.h"
#include "ralph/store/session_store.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace ralph::server {

// The JSON the API answers with (docs/reference/api.md), made from the store's rows, which were
// redacted when they were written.

// What a list shows of a session besides its row.
struct SessionFacts {
  bool running = false; // a live process owns it
  bool hosted = false;  // this server runs it
  std::string batch;    // the batch it is a goal of, if known
};

// SessionSummary. `config` is the row's recorded configuration, when it could be read.
nlohmann::json session_summary(const store::SessionRow& row, const SessionFacts& facts,
                               const std::optional<Config>& config);

// The whole session: summary with answer, budgets, configuration, attempts with their
// verdicts, tool calls (long texts cut to `head_bytes`) and model calls.
nlohmann::json session_detail(const store::SessionRecord& record, const SessionFacts& facts,
                              const std::optional<Config>& config, std::size_t head_bytes);

// One tool call with its whole result.
nlohmann::json tool_call_detail(const store::ToolCallRow& call);

// A verdict, its output cut to `head_bytes` (0: the whole of it as "output"); `failed_before` is
// the same verifier's failing count in the attempt before.
nlohmann::json verdict_view(const store::VerdictRow& verdict, std::optional<int> failed_before,
                            std::size_t head_bytes);

} // namespace ralph::server
