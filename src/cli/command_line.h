#pragma once

#include "ralph/core/config.h"
#include "ralph/store/session_filter.h"

#include <chrono>
#include <string>
#include <vector>

namespace ralph::cli {

// Most attempts of `ralph run --parallel-attempts N`.
inline constexpr int k_max_parallel_attempts = 16;

// Options shared by every command that runs an agent.
struct RunArgs {
  std::string goal;      // `qa` and `task`: the query
  std::string document;  // `qa` and `task`: --doc
  std::string workspace; // empty: the current directory
  std::string config_file;
  std::vector<ConfigOverride> overrides;
  std::string events_file;    // --events: NDJSON of every event
  bool append_events = false; // add to the --events file instead of replacing it
  std::string out_dir;        // --out: trace files after each attempt
  bool json = false;
  bool quiet = false;
  int parallel_attempts = 1; // `run`: best of N attempts, each in its own worktree
};

enum class CommandName {
  none,
  run,
  qa,
  task,
  demo,
  sessions_list,
  sessions_show,
  sessions_resume,
  sessions_export,
  sessions_rm,
  sessions_prune,
  sessions_copy,
  hook,
  hook_install,
  hook_uninstall,
  chat,
  heartbeat,
  batch,
  batch_status,
  batch_export,
  worker,
  serve,
  mcp_list,
  mcp_check,
  mcp_serve,
  mcp_install,
  mcp_uninstall,
};

// Options of `ralph batch` besides those of a run (which every goal starts from).
struct BatchArgs {
  std::string goals_file;
  int concurrency = 8;      // goals running at once
  std::string results_file; // empty: results.jsonl in the batch's folder
  // The batch's own budgets, as typed (checked as budget.max_tokens, .max_cost_usd, .max_time).
  std::string token_budget;
  std::string cost_budget;
  std::string time_budget;
  // --queue URL (or RALPH_QUEUE_URL): enqueue FILE there for `ralph worker`s, or read a queued
  // batch (status, export).
  std::string queue;
  std::string name;        // --name: the queued batch; default: as the local batch's id
  std::string output_file; // export -o; empty: stdout
};

// Options of `ralph worker`.
struct WorkerArgs {
  std::string queue;   // --queue URL or RALPH_QUEUE_URL
  int concurrency = 8; // goals running at once
  std::string workdir; // workspaces and clones; default .ralph/worker under the cwd
  std::string push;    // --push REMOTE: each result branch pushed there
  std::chrono::milliseconds lease{std::chrono::seconds(60)}; // renewed every third of it
  bool exit_when_empty = false; // exit once no goal is queued or running
};

// Options of `ralph serve`.
struct ServeArgs {
  std::string bind = "127.0.0.1";
  int port = 8321;
  std::vector<std::string> allow_hosts;
  std::string token_file; // a file holding the API token (else RALPH_SERVE_TOKEN, else a new one)
  bool read_only = false;
  int max_streams = 64; // live event streams (browser tabs) open at once
};

// Options of `ralph mcp ...` besides those of a run (workspace, config, --json).
struct McpArgs {
  std::vector<std::string> names; // list / check: the servers (none: every one configured)
  std::string target;             // install / uninstall: claude, codex or gemini
  bool user = false;              // install / uninstall: the user's settings, not the project's
  bool project = false;           // --project: the default, said out loud
};

// Options of `ralph chat` besides those of a run.
struct ChatArgs {
  std::string resume; // --resume ID: go on with a recorded chat
};

// Options of `ralph heartbeat` besides those of a run.
struct HeartbeatArgs {
  std::chrono::milliseconds every{0}; // --every: a tick this often; 0: one tick
  int ticks = 0;                      // --ticks: stop after this many; 0: until interrupted
  bool wait = false;                  // --wait: wait for a running tick instead of skipping
};

// Options of `ralph hook` besides the verifiers' (which are in RunArgs::overrides).
struct HookArgs {
  std::string agent;    // --agent: claude, codex or gemini; empty: told from the payload
  std::string target;   // install / uninstall: the agent CLI
  bool user = false;    // install / uninstall: the user's settings instead of the project's
  bool project = false; // --project: the default, said out loud
};

// Options of `ralph sessions ...` besides those of a run (workspace, config, --json, budgets).
struct SessionsArgs {
  std::string id;
  bool yes = false;                        // resume without asking
  std::string out_dir;                     // export
  std::chrono::milliseconds older_than{0}; // prune: sessions not updated for this long
  bool heartbeat = false;                  // list: heartbeat ticks only, with their summary
  store::SessionFilter filter;             // list: --status, --kind, --limit
  std::string copy_to;                     // copy: the store to copy to
  std::vector<std::string> ids;            // copy: the sessions (ids or prefixes); none: all
  bool replace = false;                    // copy: replace sessions already there
};

struct ParsedCommand {
  CommandName name = CommandName::none;
  RunArgs run;
  SessionsArgs sessions;
  HookArgs hook;
  ChatArgs chat;
  HeartbeatArgs heartbeat;
  BatchArgs batch;
  WorkerArgs worker;
  ServeArgs serve;
  McpArgs mcp;
  // Set when parsing already decided the outcome (help printed: 0; bad usage, its one line
  // printed: 2).
  int exit_code = -1;
};

// Parses argv. Help, version and usage errors are printed here (help to stdout, errors as one
// line to stderr).
ParsedCommand parse_command_line(int argc, char** argv);

} // namespace ralph::cli
