#pragma once

#include "ralph/core/error.h"
#include "ralph/core/event.h"

#include <string>

namespace ralph::app {

// What happens in a chat, for a display or a server (ninja's `Status`): every event of its turns
// and goals, redacted (on_event, called from the thread running the turn or goal), and one typed
// call for each thing a chat itself has to say. Nothing it does feeds back into the chat, but it
// may call the chat's commands (request_hold, add_verify, status, ...) from any of these calls.
class ChatObserver : public EventSink {
public:
  // Something the person should know about a goal's verifiers as its run starts (a judge of the
  // agent's own family, a protected path that matches nothing), redacted.
  virtual void on_warning(const std::string& warning) = 0;
  // The goal's verifiers or budgets changed during an attempt: its run ended after that attempt
  // and goes on with them now, from its record.
  virtual void on_goal_goes_on_with_changes() = 0;
  // The chat's own record could not be written (its message redacted). The chat goes on; what
  // was not written is lost when the process ends. From the thread that wrote it.
  virtual void on_record_failed(const Error& error) = 0;
};

} // namespace ralph::app
