#include "server/idempotency.h"

namespace ralph::server {

Idempotency::Lookup Idempotency::find(const std::string& key, const std::string& request_text) {
  const auto now = std::chrono::steady_clock::now();
  const std::lock_guard lock(m_mutex);
  std::erase_if(m_entries,
                [&](const auto& entry) { return now - entry.second.at > std::chrono::hours(24); });
  const auto found = m_entries.find(key);
  if (found == m_entries.end()) {
    m_entries.emplace(key, Entry{request_text, std::nullopt, now});
    return {};
  }
  if (found->second.request_text != request_text || !found->second.response) {
    return {Seen::conflict, {}};
  }
  return {Seen::same, *found->second.response};
}

void Idempotency::remember(const std::string& key, const HttpResponse& response) {
  const std::lock_guard lock(m_mutex);
  const auto found = m_entries.find(key);
  if (found != m_entries.end()) {
    found->second.response = response;
  }
}

void Idempotency::forget(const std::string& key) {
  const std::lock_guard lock(m_mutex);
  m_entries.erase(key);
}

} // namespace ralph::server
