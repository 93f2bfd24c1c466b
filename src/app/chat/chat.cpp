#include "ralph/app/chat/chat.h"

#include "app/chat/chat_progress.h"

#include "ralph/core/host_name.h"
#include "ralph/core/ids.h"
#include "ralph/core/setting_names.h"
#include "ralph/core/time.h"
#include "ralph/core/try.h"
#include "ralph/session/agents.h"
#include "ralph/session/record.h"
#include "ralph/session/resume.h"
#include "ralph/session/settings.h"
#include "ralph/store/session_owner.h"
#include "ralph/verify/judge_rules.h"

#include <fmt/format.h>

#include <unistd.h>

namespace ralph::app {
namespace {

Error redacted(Error error, const Redactor& redactor) {
  error.message = redactor.redact(error.message);
  return error;
}

} // namespace

Chat::Chat(session::Runtime& runtime, ChatRequest request, session::Hosting hosting,
           ChatObserver& observer, const CancelToken& cancel)
    : m_runtime(runtime), m_workspace(std::move(request.workspace)),
      m_config(std::move(request.config)), m_cancel(cancel),
      m_own_io(hosting.io == nullptr ? std::make_unique<engine::BlockingIo>() : nullptr),
      m_io(hosting.io != nullptr ? hosting.io : m_own_io.get()), m_store(hosting.store),
      m_hosted_model(std::move(hosting.model)),
      m_models(std::make_unique<session::ModelProviders>(m_config, *m_io, runtime)),
      m_observer(observer), m_redactor(runtime.redactor()),
      m_progress(std::make_unique<Progress>()) {}

Chat::~Chat() = default;

Result<std::unique_ptr<Chat>> Chat::open(session::Runtime& runtime, ChatRequest request,
                                         session::Hosting hosting, ChatObserver& observer,
                                         const CancelToken& cancel) {
  const std::string resume_id = request.resume_id;
  const std::vector<Setting> flags = request.flags;
  std::unique_ptr<Chat> chat(
      new Chat(runtime, std::move(request), std::move(hosting), observer, cancel));
  if (chat->m_store == nullptr) {
    TRY_ASSIGN(chat->m_own_store, session::open_store(chat->m_config, chat->m_workspace));
    chat->m_store = chat->m_own_store.get();
  }
  if (chat->m_store == nullptr) {
    return fail(ErrorKind::config,
                "store.enabled is false: a chat is a recorded session (its goals pause and "
                "resume from the record); turn the store on to chat");
  }
  TRY(resume_id.empty() ? chat->start_new() : chat->resume(resume_id, flags));
  chat->m_open_before = std::chrono::milliseconds(chat->m_row.elapsed_ms);
  chat->m_opened = chat->m_io->clock().now();
  chat->save();
  return chat;
}

Result<void> Chat::start_new() {
  m_row = session::new_session_row(new_session_id(), k_untitled, m_workspace, m_config, m_redactor,
                                   {}, m_io->clock().wall_now());
  m_row.kind = store::SessionKind::chat;
  m_row.resume_json = chat_state_to_json(m_state);
  // A chat that cannot talk to its agent is not recorded at all.
  TRY(make_agent());
  TRY(m_store->create_session(m_row));
  return {};
}

Result<void> Chat::resume(const std::string& resume_id, const std::vector<Setting>& flags) {
  // An id or a prefix that names one session, as `sessions show` takes.
  auto found = session::find_session(*m_store, resume_id);
  if (!found && found.error().kind == ErrorKind::usage) {
    return fail(ErrorKind::usage, fmt::format("--resume {}: {}", resume_id, found.error().message));
  }
  TRY(found);
  if (found->kind != store::SessionKind::chat) {
    return fail(ErrorKind::usage,
                fmt::format("--resume {}: a {} session, not a chat (go on with it with ralph "
                            "sessions resume {})",
                            resume_id, to_string(found->kind), resume_id));
  }
  if (store::session_owned(*found)) {
    return fail(ErrorKind::usage, fmt::format("--resume {}: the chat is open in {}", resume_id,
                                              store::owner_text(*found)));
  }
  // The chat goes on with the model, agent and settings it was recorded with, the flags of this
  // opening over them, as `sessions resume` does.
  TRY_ASSIGN(m_config, session::recorded_settings(*found, flags));
  m_row = *found;
  TRY_ASSIGN(m_state, chat_state_from_json(found->resume_json, fmt::format("chat {}", found->id)));
  // A goal that was running when the chat ended waits for the user: it may have been what ended
  // it.
  if (m_state.goal && m_state.goal->status == Status::active && !m_state.goal->held) {
    m_state.goal->held = true;
    m_state.goal->reason = "the chat ended while it ran";
  }
  return make_agent();
}

Result<void> Chat::make_agent() {
  if (session::uses_external_agent(m_config)) {
    TRY_ASSIGN(m_agent,
               session::make_external_agent(m_config, m_workspace, m_io->runner(), m_row.id));
    return {};
  }
  if (m_hosted_model) {
    m_model = m_hosted_model;
  } else {
    TRY_ASSIGN(m_model, m_models->make(m_config.model));
  }
  const auto rules = verify::read_judge_rules(
      m_workspace, verify::judge_rules_file_names(m_config.judge.rules_files, false),
      m_config.judge.rules_chars);
  TRY_ASSIGN(session::McpConnections mcp,
             session::connect_mcp_servers(m_config, m_workspace, *m_io, m_runtime));
  session::BuiltinAgent made = session::make_builtin_agent(
      m_config, *m_model, m_io->runner(), m_workspace, m_cancel, rules, std::move(mcp));
  m_registry = std::move(made.tools);
  m_agent = std::move(made.agent);
  return {};
}

std::string Chat::now() const {
  return iso8601_utc(m_io->clock().wall_now());
}

void Chat::stamp_elapsed() {
  const auto open =
      std::chrono::duration_cast<std::chrono::milliseconds>(m_io->clock().now() - m_opened);
  m_row.elapsed_ms = (m_open_before + open).count();
}

void Chat::save() {
  {
    const std::scoped_lock lock(m_mutex);
    if (m_working) {
      return; // the work writes the record when it ends
    }
  }
  write_row();
}

void Chat::write_row() {
  std::string state;
  {
    const std::scoped_lock lock(m_mutex);
    state = chat_state_to_json(m_state);
  }
  Result<void> written;
  {
    const std::scoped_lock lock(m_row_mutex);
    m_row.resume_json = m_redactor.redact_json(state);
    m_row.status = Status::active;
    m_row.owner_pid = getpid();
    m_row.owner_host = host_name();
    m_row.updated_at = now();
    stamp_elapsed();
    written = m_store->update_session(m_row);
  }
  // Told without the lock: the observer may answer with a command that writes the row again.
  if (!written) {
    m_observer.on_record_failed(redacted(written.error(), m_redactor));
  }
}

Chat::Working::Working(Chat& chat) : m_chat(chat) {
  const std::scoped_lock lock(chat.m_mutex);
  chat.m_working = true;
}

Chat::Working::~Working() {
  {
    const std::scoped_lock lock(m_chat.m_mutex);
    m_chat.m_working = false;
  }
  m_chat.write_row();
}

void Chat::set_goal(const std::string& text) {
  const std::scoped_lock lock(m_mutex);
  ChatGoal goal;
  goal.text = text;
  goal.settings = std::exchange(m_state.next, GoalSettings{});
  m_state.goal = std::move(goal);
  *m_progress = Progress{};
  m_hold = false;
  m_changed = false;
}

ChatGoal* Chat::active_goal() {
  return m_state.goal && m_state.goal->status == Status::active ? &*m_state.goal : nullptr;
}

const ChatGoal* Chat::active_goal() const {
  return m_state.goal && m_state.goal->status == Status::active ? &*m_state.goal : nullptr;
}

bool Chat::goal_held() const {
  const std::scoped_lock lock(m_mutex);
  const ChatGoal* goal = active_goal();
  return goal != nullptr && goal->held;
}

bool Chat::request_hold() {
  const std::scoped_lock lock(m_mutex);
  const ChatGoal* goal = active_goal();
  if (goal == nullptr || goal->held) {
    return false;
  }
  m_hold = true;
  return true;
}

bool Chat::release_hold() {
  {
    const std::scoped_lock lock(m_mutex);
    ChatGoal* goal = active_goal();
    if (goal == nullptr || !goal->held) {
      return false;
    }
    goal->held = false;
    goal->reason.clear();
    m_hold = false;
  }
  save();
  return true;
}

ChangeFor Chat::change_settings(const std::function<void(GoalSettings&)>& edit) {
  bool current = false;
  {
    const std::scoped_lock lock(m_mutex);
    ChatGoal* goal = active_goal();
    edit(goal != nullptr ? goal->settings : m_state.next);
    current = goal != nullptr;
    m_changed = current;
  }
  save();
  return current ? ChangeFor::goal : ChangeFor::next_goal;
}

Result<ChangeFor> Chat::add_verify(const std::string& command) {
  return change_settings(
      [&](GoalSettings& settings) { settings.verify_commands.push_back(command); });
}

Result<ChangeFor> Chat::set_judge(const std::string& model) {
  Config probe = m_config;
  TRY(set_config_value(probe, "judge.model", model, "/judge"));
  return change_settings([&](GoalSettings& settings) { settings.judge = model; });
}

Result<ChangeFor> Chat::change_budgets(const std::vector<ConfigOverride>& changes) {
  for (const ConfigOverride& change : changes) {
    const SettingNames* names = find_setting(change.key);
    if (names == nullptr || names->budget_name.empty()) {
      return fail(ErrorKind::usage, fmt::format("{}: {} is not a budget", change.flag, change.key));
    }
  }
  TRY(parse_settings(changes));
  return change_settings([&](GoalSettings& settings) {
    settings.budgets.insert(settings.budgets.end(), changes.begin(), changes.end());
  });
}

void Chat::clear() {
  {
    const std::scoped_lock lock(m_mutex);
    m_state = ChatState{};
    *m_progress = Progress{};
    m_hold = false;
    m_changed = false;
  }
  save();
}

void Chat::close(bool interrupted) {
  m_row.status = interrupted ? Status::interrupted : Status::completed;
  m_row.reason = interrupted ? "the chat was stopped by a signal" : "the chat was left";
  {
    const std::scoped_lock lock(m_mutex);
    m_row.resume_json = m_redactor.redact_json(chat_state_to_json(m_state));
  }
  m_row.owner_pid = 0;
  m_row.owner_host.clear();
  m_row.updated_at = now();
  stamp_elapsed();
  if (auto written = m_store->update_session(m_row); !written) {
    m_observer.on_record_failed(redacted(written.error(), m_redactor));
  }
}

} // namespace ralph::app
