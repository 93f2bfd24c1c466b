#include "ralph/store/session_store.h"

#include "ralph/core/try.h"

namespace ralph::store {

Result<bool> SessionStore::put_record(const SessionRecord& record, bool replace) {
  TRY_ASSIGN(const std::optional<SessionRow> there, find_session(record.session.id));
  if (there) {
    if (!replace) {
      return false;
    }
    TRY(remove_session(record.session.id));
  }
  TRY(create_session(record.session));
  for (const AttemptRow& attempt : record.attempts) {
    TRY(save_attempt(attempt));
  }
  for (const ModelCallRow& call : record.model_calls) {
    TRY(add_model_call(call, record.session));
  }
  for (const ToolCallRow& call : record.tool_calls) {
    TRY(add_tool_call(call));
  }
  for (const AttemptRow& attempt : record.attempts) {
    std::vector<VerdictRow> verdicts;
    for (const VerdictRow& verdict : record.verdicts) {
      if (verdict.iteration == attempt.iteration) {
        verdicts.push_back(verdict);
      }
    }
    if (attempt.finished || !verdicts.empty()) {
      TRY(finish_attempt(attempt, verdicts, record.session));
    }
  }
  TRY(update_session(record.session));
  return true;
}

} // namespace ralph::store
