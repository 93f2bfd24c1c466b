#include "ralph/http/sse_decoder.h"

#include <charconv>
#include <cstring>
#include <utility>

namespace ralph::http {
namespace {

constexpr std::string_view k_bom = "\xEF\xBB\xBF";

bool is_all_digits(std::string_view text) {
  if (text.empty()) {
    return false;
  }
  for (char c : text) {
    if (c < '0' || c > '9') {
      return false;
    }
  }
  return true;
}

// The first CR or LF at or after `pos`. Two memchr scans instead of find_first_of, which tests
// the two-byte set once per input byte and dominated the decoder's time.
std::size_t line_end(std::string_view bytes, std::size_t pos) {
  const char* begin = bytes.data() + pos;
  const std::size_t length = bytes.size() - pos;
  const void* lf = std::memchr(begin, '\n', length);
  const std::size_t lf_at =
      lf == nullptr ? length : static_cast<std::size_t>(static_cast<const char*>(lf) - begin);
  // A CR can only matter before the LF found (or anywhere, when there is none).
  const void* cr = std::memchr(begin, '\r', lf_at);
  if (cr != nullptr) {
    return pos + static_cast<std::size_t>(static_cast<const char*>(cr) - begin);
  }
  return lf == nullptr ? std::string_view::npos : pos + lf_at;
}

} // namespace

SseDecoder::SseDecoder(Handler handler) : m_handler(std::move(handler)) {}

void SseDecoder::feed(std::string_view bytes) {
  if (m_seen_first_bytes) {
    feed_lines(bytes);
    return;
  }
  // The BOM may itself arrive split across feeds: hold bytes until the first three are known.
  m_buffer.append(bytes);
  if (m_buffer.size() < k_bom.size() && k_bom.substr(0, m_buffer.size()) == m_buffer) {
    return;
  }
  m_seen_first_bytes = true;
  std::string pending = std::move(m_buffer);
  m_buffer.clear();
  std::string_view rest = pending;
  if (rest.substr(0, k_bom.size()) == k_bom) {
    rest.remove_prefix(k_bom.size());
  }
  feed_lines(rest);
}

void SseDecoder::feed_lines(std::string_view bytes) {
  std::size_t pos = 0;
  if (m_last_was_cr && !bytes.empty()) {
    // The CR that ended the previous feed already ended its line; this LF is its other half.
    m_last_was_cr = false;
    if (bytes[0] == '\n') {
      pos = 1;
    }
  }
  while (pos < bytes.size()) {
    const std::size_t end = line_end(bytes, pos);
    if (end == std::string_view::npos) {
      m_buffer.append(bytes.substr(pos));
      return;
    }
    if (m_buffer.empty()) {
      process_line(bytes.substr(pos, end - pos));
    } else {
      m_buffer.append(bytes.substr(pos, end - pos));
      const std::string line = std::move(m_buffer);
      m_buffer.clear();
      process_line(line);
    }
    pos = end + 1;
    if (bytes[end] == '\r') {
      if (pos == bytes.size()) {
        m_last_was_cr = true;
      } else if (bytes[pos] == '\n') {
        ++pos;
      }
    }
  }
}

bool SseDecoder::has_partial_event() const {
  const bool partial_line = !m_buffer.empty() && m_buffer.front() != ':';
  return m_pending_fields || partial_line;
}

void SseDecoder::process_line(std::string_view line) {
  if (line.empty()) {
    dispatch();
    return;
  }
  if (line.front() == ':') {
    return; // comment or keep-alive
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    process_field(line, {});
    return;
  }
  std::string_view value = line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') {
    value.remove_prefix(1);
  }
  process_field(line.substr(0, colon), value);
}

void SseDecoder::process_field(std::string_view name, std::string_view value) {
  if (name == "data") {
    m_data.append(value);
    m_data.push_back('\n');
    m_pending_fields = true;
    return;
  }
  if (name == "event") {
    m_event.assign(value);
    m_pending_fields = true;
    return;
  }
  if (name == "id") {
    if (value.find('\0') == std::string_view::npos) {
      m_last_id.assign(value);
    }
    return;
  }
  if (name == "retry") {
    std::int64_t ms = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
    if (is_all_digits(value) && ec == std::errc{} && ptr == value.data() + value.size()) {
      m_retry_ms = ms;
    }
    return;
  }
  if (name == "error" && !value.empty()) {
    // Old llama.cpp servers report failures as a bare `error:` field; a spec parser would drop
    // it and the client would see a silently truncated stream.
    SseEvent event{"error", std::string(value), m_last_id};
    m_handler(event);
  }
}

void SseDecoder::dispatch() {
  m_pending_fields = false;
  if (m_data.empty()) {
    m_event.clear();
    return;
  }
  m_data.pop_back(); // the '\n' appended after the last data line
  SseEvent event;
  event.event = m_event.empty() ? "message" : std::move(m_event);
  event.data = std::move(m_data);
  event.id = m_last_id;
  m_event.clear();
  m_data.clear();
  if (event.data.empty()) {
    return; // `data:` with nothing after it is a keep-alive, not an event
  }
  m_handler(event);
}

} // namespace ralph::http
