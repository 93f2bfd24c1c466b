#include "cli/chat_command.h"

#include "cli/chat_input.h"
#include "cli/chat_view.h"
#include "cli/interrupt.h"
#include "cli/requests.h"
#include "cli/run_report.h"
#include "cli/slash_command.h"
#include "cli/terminal_view.h"

#include "ralph/app/chat/chat.h"
#include "ralph/core/try.h"
#include "ralph/session/agents.h"
#include "ralph/session/settings.h"

#include <fmt/format.h>

#include <clocale>
#include <cstdlib>
#include <thread>
#include <unistd.h>

namespace ralph::cli {
namespace {

// `$XDG_STATE_HOME/ralph/history`, else `~/.local/state/ralph/history`; empty when neither is
// known (no history kept).
std::filesystem::path history_file() {
  std::filesystem::path dir;
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && *state != '\0') {
    dir = std::filesystem::path(state) / "ralph";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    dir = std::filesystem::path(home) / ".local" / "state" / "ralph";
  } else {
    return {};
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return dir / "history";
}

// The chat's conversation with the person: reads what they type, runs each turn or goal on a
// worker thread while it goes on reading (on a terminal), and says what came of it.
class ChatLoop {
public:
  ChatLoop(app::Chat& chat, ChatInput& input, TerminalView& view, const CancelToken& root)
      : m_chat(chat), m_input(input), m_view(view), m_root(root) {
    // What is typed while a goal runs goes on a line of its own, not after the status line
    // (which comes back once the line is read).
    m_input.before_typing_shows([&view] { view.hold_status(); });
  }
  ~ChatLoop() { finish_job(true); }
  ChatLoop(const ChatLoop&) = delete;
  ChatLoop& operator=(const ChatLoop&) = delete;

  // Returns the exit code: 0 when the person left, 130 on SIGTERM.
  int run() {
    while (true) {
      m_view.resume_status();
      // Scripted input waits for each turn to end before the next line is read.
      const InputEvent event = m_job == Job::none      ? m_input.read(prompt())
                               : m_input.interactive() ? m_input.read("")
                                                       : m_input.wait();
      switch (event.kind) {
      case InputEvent::Kind::woken:
        if (m_job != Job::none && m_done) {
          finish_job(false);
        }
        break;
      case InputEvent::Kind::interrupt:
        if (m_job != Job::none) {
          m_turn.cancel();
          m_view.note(m_job == Job::goal ? "  · stopping the attempt (the goal is held)"
                                         : "  · stopping the turn");
        } else {
          m_view.note("(Ctrl-D or /exit leaves)");
        }
        break;
      case InputEvent::Kind::terminate:
        finish_job(true);
        return 130;
      case InputEvent::Kind::end:
        finish_job(true);
        return 0;
      case InputEvent::Kind::line:
        if (!event.text.empty()) {
          m_input.remember(event.text);
        }
        if (handle(event.text)) {
          finish_job(true);
          return 0;
        }
        break;
      }
    }
  }

private:
  enum class Job { none, turn, goal };

  std::string prompt() const { return m_chat.goal_held() ? "ralph (goal held)> " : "ralph> "; }

  void say(const std::string& line) { m_view.reply(line); }

  // Returns true when the person leaves.
  bool handle(const std::string& line) {
    auto command = parse_slash_command(line);
    if (!command) {
      say("error: " + command.error().message);
      return false;
    }
    if (!*command) {
      const std::string text = chat_text(line);
      if (text.empty()) {
        return false;
      }
      if (m_job != Job::none) {
        say("the agent is working; the line was not sent (wait, or /stop it)");
        return false;
      }
      start(Job::turn,
            [this, text](const CancelToken& cancel) { m_turn_result = m_chat.say(text, cancel); });
      return false;
    }
    const SlashCommand& slash = **command;
    switch (slash.verb) {
    case SlashVerb::goal:
      if (m_job != Job::none) {
        say("something is running; /stop it before a new goal");
        break;
      }
      if (m_chat.goal_held()) {
        say("the held goal is dropped for the new one");
      }
      m_chat.set_goal(slash.argument);
      start_goal();
      break;
    case SlashVerb::verify:
      tell(m_chat.add_verify(slash.argument),
           [&](app::ChangeFor target) { return verifier_added_text(target, slash.argument); });
      break;
    case SlashVerb::judge:
      tell(m_chat.set_judge(slash.argument),
           [&](app::ChangeFor target) { return judge_set_text(target, slash.argument); });
      break;
    case SlashVerb::budget:
      if (slash.argument.empty()) {
        m_view.print(budgets_text(m_chat.status().budgets));
      } else if (auto changes = parse_budget_changes(slash.argument); !changes) {
        say("error: " + changes.error().message);
      } else {
        tell(m_chat.change_budgets(*changes),
             [&](app::ChangeFor /*target*/) { return budgets_text(m_chat.status().budgets); });
      }
      break;
    case SlashVerb::status:
      m_view.print(status_text(m_chat.status()));
      break;
    case SlashVerb::pause:
      if (m_job == Job::goal && m_chat.request_hold()) {
        say("the goal holds once this attempt ends (/resume goes on)");
      } else if (m_chat.goal_held()) {
        say("the goal is held already (/resume goes on)");
      } else {
        say("no goal is running");
      }
      break;
    case SlashVerb::resume:
      if (m_job != Job::none) {
        say("it is running already");
      } else if (m_chat.release_hold()) {
        start_goal();
      } else {
        say("no goal is held");
      }
      break;
    case SlashVerb::stop:
      if (m_job == Job::none) {
        say("nothing is running");
      } else {
        m_turn.cancel();
        say(m_job == Job::goal ? "stopping the attempt (the goal is held)" : "stopping the turn");
      }
      break;
    case SlashVerb::clear:
      finish_job(true);
      m_chat.clear();
      say("cleared: no goal, no conversation, nothing added with /verify, /judge or /budget; a "
          "fresh start");
      break;
    case SlashVerb::help:
      m_view.print(slash_help());
      break;
    case SlashVerb::exit:
      return true;
    }
    return false;
  }

  // The reply to a change of the goal's settings: what `words` makes of it, or the error.
  template <typename Words> void tell(const Result<app::ChangeFor>& changed, const Words& words) {
    say(changed ? words(*changed) : "error: " + changed.error().message);
  }

  void start_goal() {
    start(Job::goal,
          [this](const CancelToken& cancel) { m_goal_result = m_chat.work_on_goal(cancel); });
  }

  template <typename Work> void start(Job job, Work work) {
    m_job = job;
    m_done = false;
    m_turn = m_root.child();
    m_worker = std::thread([this, work = std::move(work)] {
      work(m_turn);
      m_done = true;
      m_input.wake();
    });
  }

  // Waits for the job (stopping it first when `stop`) and says what came of it.
  void finish_job(bool stop) {
    if (m_job == Job::none) {
      return;
    }
    if (stop) {
      m_turn.cancel();
    }
    m_worker.join();
    const Job job = std::exchange(m_job, Job::none);
    if (job == Job::turn) {
      report_turn();
    } else {
      report_goal();
    }
  }

  void report_turn() {
    if (!m_turn_result) {
      say("error: " + m_turn_result.error().message);
      return;
    }
    const SessionReport& result = *m_turn_result;
    if (result.status == Status::interrupted) {
      say("  · the turn was stopped");
    } else if (result.status == Status::failed && result.error) {
      if (!m_view.error_shown(result.error->message)) {
        say("error: " + result.error->message);
      }
    } else if (!m_view.answer_shown() && !result.answer.empty()) {
      m_view.print(result.answer);
    }
  }

  void report_goal() {
    if (!m_goal_result) {
      say("error: " + m_goal_result.error().message + " (the goal is held; /resume retries)");
      return;
    }
    const SessionReport& result = *m_goal_result;
    if (result.status == Status::interrupted) {
      say(fmt::format("goal held · {} · /resume goes on, /status shows where it stands",
                      result.reason));
      return;
    }
    if (!result.notice.empty()) {
      m_view.print(result.notice);
    }
    say("goal " + summary_line(result));
  }

  app::Chat& m_chat;
  ChatInput& m_input;
  TerminalView& m_view;
  const CancelToken& m_root;
  Job m_job = Job::none;
  std::atomic<bool> m_done{false};
  CancelToken m_turn;
  std::thread m_worker;
  Result<SessionReport> m_turn_result = SessionReport{};
  Result<SessionReport> m_goal_result = SessionReport{};
};

} // namespace

Result<int> chat_command(const RunArgs& args, const ChatArgs& chat_args) {
  session::Runtime runtime;
  TRY_ASSIGN(std::filesystem::path workspace, session::resolve_workspace(args.workspace));
  TRY_ASSIGN(std::vector<Setting> flags, parse_settings(args.overrides));
  TRY_ASSIGN(Config loaded, load_config(args, workspace, runtime.environment()));
  const CancelToken cancel;
  const InterruptHandler interrupt(cancel);
  TerminalView view(stdout, stderr,
                    {.stream_text = true,
                     .progress = !args.quiet,
                     .color = TerminalView::color_wanted(stderr),
                     .live = TerminalView::live_wanted(stderr),
                     .progress_interval = std::chrono::duration_cast<std::chrono::milliseconds>(
                         loaded.display.progress_interval)});
  ChatTerminal shown(view);
  // The chat opens the store its configuration names, and does its I/O blocking.
  TRY_ASSIGN(auto chat, app::Chat::open(runtime,
                                        {.workspace = workspace,
                                         .config = std::move(loaded),
                                         .flags = std::move(flags),
                                         .resume_id = chat_args.resume},
                                        {}, shown, cancel));
  // libedit shows what is typed by the locale's character classes; numbers and messages do not
  // depend on LC_CTYPE.
  std::setlocale(LC_CTYPE, "");
  ChatInput input(history_file(), STDIN_FILENO, STDOUT_FILENO);
  view.note(fmt::format("ralph {} chat · {} · workspace {} · session {}", RALPH_VERSION,
                        session::agent_label(chat->config()), workspace.string(), chat->id()));
  if (!chat_args.resume.empty()) {
    std::string status = status_text(chat->status());
    status.pop_back(); // its last newline
    view.reply(status);
  }
  if (input.interactive()) {
    view.note("/goal TEXT works on TEXT until it is verified; /help lists the commands; Ctrl-D "
              "leaves");
  }
  int code = 0;
  {
    ChatLoop loop(*chat, input, view, cancel);
    code = loop.run();
  }
  chat->close(code == 130);
  view.note(fmt::format("chat {} saved: ralph chat --resume {}", chat->id(), chat->id()));
  return code;
}

} // namespace ralph::cli
