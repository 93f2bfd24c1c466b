#pragma once

#include "ralph/core/enum_names.h"
#include "ralph/core/error.h"
#include "ralph/core/outcome.h"
#include "ralph/core/settings.h"
#include "ralph/core/status.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ralph::store {

// Plain rows of the session record. Times are ISO 8601 UTC strings (core/time.h); *_json fields
// are JSON text the layers above define (the store keeps them verbatim). Text reaching these rows
// has been redacted by the caller.

// What started a session: `ralph run` (and `sessions resume`, hooks, documents), an interactive
// `ralph chat`, a `/goal` loop inside a chat, one tick of `ralph heartbeat`, or `ralph run
// --parallel-attempts N` (whose N attempts are `run` sessions with it as their parent).
enum class SessionKind { run, chat, goal, heartbeat, best_of };

inline constexpr EnumName<SessionKind> k_session_kind_names[] = {
    {SessionKind::run, "run"},
    {SessionKind::chat, "chat"},
    {SessionKind::goal, "goal"},
    {SessionKind::heartbeat, "heartbeat"},
    {SessionKind::best_of, "best_of"}};

inline const char* to_string(SessionKind kind) {
  return name_of(k_session_kind_names, kind);
}

struct SessionRow {
  std::string id;
  std::string goal;
  std::string workspace;
  std::string model; // "provider/model" of the agent
  Status status = Status::active;
  std::string reason; // why it ended, one line
  std::string answer; // the delivered answer once finished
  std::string created_at;
  std::string updated_at;
  std::string config_json = "{}";   // the configuration it ran with, no secrets
  std::string baseline_json = "{}"; // state fixed before the first attempt (protected paths)
  std::string resume_json = "{}";   // what the next attempt starts from: conversation, feedback
  int iterations = 0;               // attempts started
  int best_iteration = 0;
  std::int64_t input_tokens = 0; // every model call so far, verifiers' included
  std::int64_t output_tokens = 0;
  double cost_usd = 0;
  bool cost_known = true;
  std::int64_t elapsed_ms = 0;  // wall time spent in all runs of the session so far
  std::int64_t owner_pid = 0;   // the process running it now; 0 when none
  std::string owner_host;       // the machine owner_pid is on; empty: unknown (older rows)
  bool verified = false;        // every verifier passed the delivered answer (LoopResult)
  bool usage_estimated = false; // some token counts are estimates: a server reported none
  SessionKind kind = SessionKind::run;
  std::string parent_id; // a goal's chat session, an attempt's best-of-N session; else empty
};

struct AttemptRow {
  std::string session_id;
  int iteration = 0;
  bool finished = false;
  std::string started_at;
  std::string finished_at;
  std::string start_json = "[]";    // the conversation the attempt started from
  std::string messages_json = "[]"; // the messages the attempt added (when finished)
  std::string answer;
  std::string stop; // agent stop reason
  int steps = 0;
  int tool_calls = 0;
  std::int64_t input_tokens = 0; // the agent's model calls in this attempt
  std::int64_t output_tokens = 0;
  std::int64_t duration_ms = 0;
  bool verified = false;
  std::string skip_reason;
  bool passed = false;
  std::string feedback; // what the agent was told after it
};

struct ModelCallRow {
  std::string session_id;
  int iteration = 0;
  int step = 0;
  std::string model; // "provider/model"; the judge's calls are in verdicts
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::string stop_reason;
  std::string at;
};

struct ToolCallRow {
  std::string session_id;
  int iteration = 0;
  int seq = 0; // order within the attempt, from 1
  std::string call_id;
  std::string name;
  std::string arguments;
  std::string result;
  std::optional<int> exit_code;
  bool is_error = false;
  bool changed_workspace = false;
  std::int64_t duration_ms = 0;
  std::string at;
};

struct VerdictRow {
  std::string session_id;
  int iteration = 0;
  int seq = 0; // order within the attempt, from 1
  std::string verifier;
  std::string kind; // verify/verifier_kind.h names
  Outcome result = Outcome::error;
  std::string category;
  std::string feedback;
  std::string reasoning;
  std::optional<ErrorPolicy> policy; // for `error` verdicts: the policy applied
  std::string model;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t duration_ms = 0;
  std::string evidence_json; // empty when the verdict has no command evidence
  std::string output;        // the full output of the command behind it, if any
  std::string at;
};

// A session with everything recorded about it, for show, export and resume.
struct SessionRecord {
  SessionRow session;
  std::vector<AttemptRow> attempts;      // by iteration
  std::vector<ModelCallRow> model_calls; // in order
  std::vector<ToolCallRow> tool_calls;   // by iteration, seq
  std::vector<VerdictRow> verdicts;      // by iteration, seq
};

// The durable record of sessions. Every method is one transaction: when it returns, what it
// wrote survives a crash or a kill -9 of the process. What also survives a power cut: everything
// written up to the last create_session, update_session, finish_attempt, remove_session or
// prune, which force the record to the disk; the steps of a running attempt (add_model_call,
// add_tool_call, save_attempt of an unfinished attempt) written after it may be lost to one.
// Several processes may use one store at once (writers wait for each other). Implementations say
// whether threads may share one.
class SessionStore {
public:
  virtual ~SessionStore() = default;

  virtual Result<void> create_session(const SessionRow& session) = 0;
  // Replaces the session's row (all fields but id and created_at).
  virtual Result<void> update_session(const SessionRow& session) = 0;
  virtual Result<std::optional<SessionRow>> find_session(const std::string& id) = 0;
  // Newest first.
  virtual Result<std::vector<SessionRow>> list_sessions() = 0;
  virtual Result<std::optional<SessionRecord>> load(const std::string& id) = 0;
  // Deletes the session and everything recorded about it; false when there was none.
  virtual Result<bool> remove_session(const std::string& id) = 0;
  // Deletes sessions last updated before `cutoff` (ISO 8601) that no process owns; returns
  // their ids.
  virtual Result<std::vector<std::string>> prune(const std::string& cutoff) = 0;

  // Inserts or replaces the attempt (keyed by session and iteration).
  virtual Result<void> save_attempt(const AttemptRow& attempt) = 0;
  // A finished attempt with its verdicts, and the session's new counters, in one transaction.
  virtual Result<void> finish_attempt(const AttemptRow& attempt,
                                      const std::vector<VerdictRow>& verdicts,
                                      const SessionRow& session) = 0;
  // One step each, with the session's new counters in the same transaction.
  virtual Result<void> add_model_call(const ModelCallRow& call, const SessionRow& session) = 0;
  virtual Result<void> add_tool_call(const ToolCallRow& call) = 0;

  // Writes a whole record (another store's, for `ralph sessions copy`): false, writing nothing,
  // when a session with its id is there and `replace` is off; with it, that session is replaced.
  // The backends write it in one transaction; this default, through the methods above, does not.
  virtual Result<bool> put_record(const SessionRecord& record, bool replace);
};

} // namespace ralph::store
