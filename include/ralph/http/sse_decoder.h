#pragma once

#include <cstdint>
#include <functional>
#include <optional>
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
// "error" whose data is the field's value, dispatched as soon as its line ends.
// Events whose data is empty are never dispatched (keep-alives). Not thread-safe.
class SseDecoder {
public:
  using Handler = std::function<void(const SseEvent&)>;

  explicit SseDecoder(Handler handler);

  void feed(std::string_view bytes);
  // True when bytes of an event that was never terminated by a blank line are pending.
  bool has_partial_event() const;
  // The last valid `retry:` value in milliseconds, if the stream sent one.
  std::optional<std::int64_t> retry_ms() const { return m_retry_ms; }

private:
  void feed_lines(std::string_view bytes);
  void process_line(std::string_view line);
  void process_field(std::string_view name, std::string_view value);
  void dispatch();

  Handler m_handler;
  std::string m_buffer; // bytes of the current incomplete line (or of an undecided BOM)
  std::string m_data;
  std::string m_event;
  std::string m_last_id;
  std::optional<std::int64_t> m_retry_ms;
  bool m_seen_first_bytes = false; // the leading-BOM decision has been made
  bool m_last_was_cr = false;      // the previous feed ended in CR: skip one LF at the start
  bool m_pending_fields = false;   // data or event fields seen since the last dispatch
};

} // namespace ralph::http
