#include "cli/sessions_command.h"

#include "cli/heartbeat_view.h"
#include "cli/interrupt.h"
#include "cli/requests.h"
#include "cli/run_view.h"
#include "cli/session_view.h"

#include "ralph/core/saturating.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"
#include "ralph/core/url.h"
#include "ralph/session/agents.h"
#include "ralph/session/record.h"
#include "ralph/session/resume.h"
#include "ralph/session/settings.h"
#include "ralph/store/open_session_store.h"
#include "ralph/store/record_json.h"
#include "ralph/store/session_owner.h"
#include "ralph/store/trace_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

namespace ralph::cli {
namespace {

namespace fs = std::filesystem;

bool confirmed(const session::ResumePlan& plan) {
  const store::SessionRow& row = plan.request.resume->session;
  const long long tokens = saturating_add(row.input_tokens, row.output_tokens);
  std::fprintf(stderr,
               "Resume session %s (%s)?\n  goal: %s\n  %d attempt(s) finished; next: attempt %d "
               "of %d; %lld tokens so far\n[y/N] ",
               row.id.c_str(), to_string(row.status), row.goal.c_str(), plan.attempts_finished,
               plan.next_iteration, plan.request.config.loop.max_iterations, tokens);
  std::fflush(stderr);
  std::string answer;
  if (!std::getline(std::cin, answer)) {
    return false;
  }
  return answer == "y" || answer == "Y" || answer == "yes";
}

// `notify`: this process's `[[notify]]` entries; a record holds none.
Result<int> resume(const ParsedCommand& command, session::Runtime& runtime,
                   store::SessionStore& store, const std::vector<NotifyTarget>& notify) {
  TRY_ASSIGN(store::SessionRecord record, session::load_session(store, command.sessions.id));
  TRY_ASSIGN(const std::vector<Setting> flags, parse_settings(command.run.overrides));
  TRY_ASSIGN(session::ResumePlan plan, session::plan_resume(std::move(record), flags));
  if (!command.sessions.yes && !confirmed(plan)) {
    std::fprintf(stderr, "ralph: not resumed (answer y, or pass --yes)\n");
    return 2;
  }
  const std::string banner = fmt::format(
      "ralph {} · resuming session {} at attempt {} of {} · {} · workspace {}", RALPH_VERSION,
      plan.request.resume->session.id, plan.next_iteration, plan.request.config.loop.max_iterations,
      session::agent_label(plan.request.config), plan.request.workspace.string());
  plan.request.outputs = outputs_of(command.run);
  plan.request.config.notify = notify;
  const CancelToken cancel;
  const InterruptHandler interrupt(cancel);
  TRY_ASSIGN(auto session, session::Session::prepare(runtime, std::move(plan.request),
                                                     {.store = &store}, cancel));
  return run_shown(runtime, *session, command.run, banner);
}

Result<int> export_traces(const ParsedCommand& command, store::SessionStore& store) {
  TRY_ASSIGN(const store::SessionRecord record, session::load_session(store, command.sessions.id));
  store::TraceWriter writer(command.sessions.out_dir);
  int written = 0;
  for (const auto& attempt : record.attempts) {
    if (!attempt.finished) {
      continue;
    }
    store::TraceEntry entry;
    entry.session_id = record.session.id;
    entry.goal = record.session.goal;
    entry.created_at = record.session.created_at;
    entry.iteration = attempt.iteration;
    entry.json =
        store::attempt_trace_json(record.session, attempt, record.tool_calls, record.verdicts);
    TRY_ASSIGN(const std::vector<std::string> warnings, writer.write(entry));
    for (const auto& warning : warnings) {
      std::fprintf(stderr, "ralph: warning: %s\n", warning.c_str());
    }
    ++written;
  }
  std::printf("wrote %d trace file(s) of session %s to %s\n", written, record.session.id.c_str(),
              command.sessions.out_dir.c_str());
  return 0;
}

// `ralph sessions copy --to URL [ID...]`: each session in one transaction of the target.
Result<int> copy_sessions(const ParsedCommand& command, const Config& config,
                          store::SessionStore& from) {
  const auto& args = command.sessions;
  const std::string to = store::is_server_url(args.copy_to)
                             ? args.copy_to
                             : fs::absolute(args.copy_to).lexically_normal().string();
  const std::string shown = url_without_password(to);
  std::vector<std::string> ids;
  if (args.ids.empty()) {
    TRY_ASSIGN(const std::vector<store::SessionRow> rows, from.list_sessions());
    // Oldest first, so the target's list reads as the source's.
    std::transform(rows.rbegin(), rows.rend(), std::back_inserter(ids),
                   [](const store::SessionRow& row) { return row.id; });
  } else {
    for (const auto& id : args.ids) {
      TRY_ASSIGN(const store::SessionRow row, session::find_session(from, id));
      ids.push_back(row.id);
    }
  }
  TRY_ASSIGN(const std::unique_ptr<store::SessionStore> target,
             store::open_session_store(to, config.store.retry));
  int copied = 0;
  int skipped = 0;
  for (const auto& id : ids) {
    TRY_ASSIGN(std::optional<store::SessionRecord> record, from.load(id));
    if (!record) {
      continue; // removed since it was listed
    }
    TRY_ASSIGN(const bool written, target->put_record(*record, args.replace));
    if (written) {
      ++copied;
    } else {
      ++skipped;
      std::fprintf(stderr, "skipped session %s: already in %s (--replace to overwrite it)\n",
                   id.c_str(), shown.c_str());
    }
  }
  std::printf("copied %d session(s) to %s%s\n", copied, shown.c_str(),
              skipped > 0 ? fmt::format(", skipped {} already there", skipped).c_str() : "");
  return 0;
}

} // namespace

Result<int> sessions_command(const ParsedCommand& command) {
  session::Runtime runtime;
  TRY_ASSIGN(const fs::path workspace, session::resolve_workspace(command.run.workspace));
  RunArgs files_only = command.run;
  // Budget flags are for the resumed run, not for finding the store; --store is.
  std::erase_if(files_only.overrides,
                [](const ConfigOverride& o) { return !o.key.starts_with("store."); });
  TRY_ASSIGN(const Config config, load_config(files_only, workspace, runtime.environment()));
  TRY_ASSIGN(const std::unique_ptr<store::SessionStore> opened,
             session::open_store(config, workspace));
  if (!opened) {
    return fail(ErrorKind::config, "the session store is off (store.enabled = false): no sessions");
  }
  store::SessionStore& store = *opened;
  const auto& sessions = command.sessions;

  switch (command.name) {
  case CommandName::sessions_list: {
    TRY_ASSIGN(const std::vector<store::SessionRow> rows, store.list_sessions());
    if (sessions.heartbeat) {
      const std::string text = command.run.json
                                   ? heartbeat_list_json(rows, store::session_owned) + "\n"
                                   : render_heartbeat_list(rows, store::session_owned);
      std::fputs(text.c_str(), stdout);
      return 0;
    }
    const std::vector<store::SessionRow> shown =
        store::select_sessions(rows, sessions.filter, store::session_owned);
    if (shown.empty() && !rows.empty() && !command.run.json) {
      std::printf("none of the %zu sessions recorded here is of the status or kind asked for\n",
                  rows.size());
      return 0;
    }
    const std::string text =
        command.run.json
            ? session_list_json(shown, store::session_owned) + "\n"
            : render_session_list(shown, std::chrono::system_clock::now(), store::session_owned);
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  case CommandName::sessions_show: {
    TRY_ASSIGN(const store::SessionRecord record, session::load_session(store, sessions.id));
    std::vector<store::SessionRow> goals;
    if (record.session.kind == store::SessionKind::chat ||
        record.session.kind == store::SessionKind::best_of) {
      TRY_ASSIGN(const std::vector<store::SessionRow> rows, store.list_sessions());
      std::copy_if(rows.rbegin(), rows.rend(), std::back_inserter(goals),
                   [&](const store::SessionRow& r) { return r.parent_id == record.session.id; });
    }
    const std::string text = command.run.json
                                 ? session_record_json(record, store::session_owned, goals) + "\n"
                                 : render_session(record, store::session_owned, goals);
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  case CommandName::sessions_resume:
    return resume(command, runtime, store, config.notify);
  case CommandName::sessions_export:
    return export_traces(command, store);
  case CommandName::sessions_rm: {
    TRY_ASSIGN(const store::SessionRow row, session::find_session(store, sessions.id));
    if (store::session_owned(row)) {
      return fail(ErrorKind::usage,
                  fmt::format("session {} is running in {}", row.id, store::owner_text(row)));
    }
    TRY(store.remove_session(row.id));
    std::printf("removed session %s\n", row.id.c_str());
    return 0;
  }
  case CommandName::sessions_copy:
    return copy_sessions(command, config, store);
  case CommandName::sessions_prune: {
    const std::string cutoff = iso8601_utc(std::chrono::system_clock::now() - sessions.older_than);
    TRY_ASSIGN(const std::vector<std::string> removed, store.prune(cutoff));
    std::printf("removed %zu session(s) not updated since %s\n", removed.size(), cutoff.c_str());
    return 0;
  }
  default:
    return fail(ErrorKind::internal, "not a sessions command");
  }
}

} // namespace ralph::cli
