#pragma once

#include "ralph/core/event.h"

#include <string>
#include <vector>

namespace ralph::testing {

// Keeps every event, for tests that check what a run showed.
class RecordingSink final : public EventSink {
public:
  void on_event(const Event& event) override { events.push_back(event); }

  // The events' names in order ("model_started", "text_delta", ...).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const Event& event : events) {
      out.emplace_back(event.name());
    }
    return out;
  }
  // The payloads of the events of one kind, in order.
  template <typename T> std::vector<T> of() const {
    std::vector<T> out;
    for (const Event& event : events) {
      if (const T* payload = event.get<T>()) {
        out.push_back(*payload);
      }
    }
    return out;
  }
  // The events of one kind, whole (with their iteration and step), in order.
  template <typename T> std::vector<Event> all() const {
    std::vector<Event> out;
    for (const Event& event : events) {
      if (event.get<T>() != nullptr) {
        out.push_back(event);
      }
    }
    return out;
  }

  std::vector<Event> events;
};

} // namespace ralph::testing
