#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ralph {

// Replaces known secret values with "[REDACTED]" in text bound for files and logs. Secrets are
// API keys handed to it and the values of environment variables named like *_KEY, *_TOKEN,
// *_SECRET or *_PASSWORD. Values shorter than 8 characters are ignored: they would match
// ordinary text. Thread-safe once built.
class Redactor {
public:
  void add(std::string_view secret);
  // Adds the secret-looking variables of `environment` (NAME=value entries, nullptr-terminated).
  void add_environment(char** environment);

  std::string redact(std::string_view text) const;
  bool empty() const { return m_secrets.empty(); }

private:
  std::vector<std::string> m_secrets; // longest first, so a key containing another goes whole
};

} // namespace ralph
