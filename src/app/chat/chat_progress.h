#pragma once

#include "ralph/app/chat/chat.h"
#include "ralph/core/clock.h"
#include "ralph/core/event.h"
#include "ralph/core/message.h"

#include <cstdint>
#include <vector>

namespace ralph::app {

// What a chat's own record says before anything was said in it.
inline constexpr const char* k_untitled = "(chat)";

// What status() shows of the goal's latest run.
struct Chat::Progress {
  int iteration = 0;
  int max_iterations = 0;
  bool running = false;
  bool verifying = false;
  int verdict_iteration = 0;
  std::vector<event::VerdictGiven> verdicts; // of verdict_iteration
  Usage usage;                               // this run's model calls, the judge's included
  std::int64_t carried_tokens = 0;           // the goal's earlier runs
  Clock::time_point started{};               // this run's start, less the earlier runs' time
  std::int64_t elapsed_ms = 0;               // the goal's time so far, once a run of it ended
};

// Counts the running work's events for status() on their way to `next`.
class Chat::Tap final : public EventSink {
public:
  Tap(Chat& chat, EventSink& next) : m_chat(chat), m_next(next) {}
  void on_event(const Event& event) override;

private:
  Chat& m_chat;
  EventSink& m_next;
};

} // namespace ralph::app
