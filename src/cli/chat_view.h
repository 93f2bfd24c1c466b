#pragma once

#include "cli/terminal_view.h"

#include "ralph/app/chat/chat.h"
#include "ralph/app/chat/chat_observer.h"
#include "ralph/app/chat/chat_status.h"

#include <string>

namespace ralph::cli {

// A chat shown on the terminal: its events through the view, what the chat says as progress
// lines.
class ChatTerminal final : public app::ChatObserver {
public:
  explicit ChatTerminal(TerminalView& view) : m_view(view) {}
  void on_event(const Event& event) override { m_view.on_event(event); }
  void on_warning(const std::string& warning) override;
  void on_goal_goes_on_with_changes() override;
  void on_record_failed(const Error& error) override;

private:
  TerminalView& m_view;
};

// /status: the goal, its state, what was added to it, the last verdicts and the budgets; ends
// with a newline.
std::string status_text(const app::ChatStatus& status);
// /budget alone: "budgets: iterations 2 of 3 · steps 40 per attempt · tokens ...".
std::string budgets_text(const app::BudgetStatus& budgets);
// The reply to /verify CMD and /judge MODEL.
std::string verifier_added_text(app::ChangeFor target, const std::string& command);
std::string judge_set_text(app::ChangeFor target, const std::string& model);

} // namespace ralph::cli
