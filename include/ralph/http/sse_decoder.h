#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace ralph::http {

// One dispatched server-sent event. `event` is "message" when the stream sent no event line.
struct SseEvent {
  std::string event;
  std::string data;
  std::string id;
};

// Incremental WHATWG event-stream parser. Feed raw bytes in any split (inside lines, inside
// CRLF, inside UTF-8 sequences); the events are the same as for one big read.
// The non-standard `error:` field of old llama.cpp servers is surfaced as an event named
// "error" whose data is the field's value. Not thread-safe.
class SseDecoder {
public:
  using Handler = std::function<void(const SseEvent&)>;

  explicit SseDecoder(Handler handler);

  void feed(std::string_view bytes);
  // True when bytes of an event that was never terminated by a blank line are pending.
  bool has_partial_event() const;

private:
  void process_line(std::string_view line);
  void dispatch();

  Handler m_handler;
  std::string m_buffer; // bytes of the current incomplete line
  std::string m_data;
  std::string m_event;
  std::string m_last_id;
  bool m_seen_first_bytes = false;
  bool m_last_was_cr = false;
  bool m_pending_fields = false;
};

} // namespace ralph::http
