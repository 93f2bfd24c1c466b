#include "ralph/core/redactor.h"

#include <algorithm>
#include <array>

namespace ralph {
namespace {

constexpr std::size_t k_min_secret = 8;
constexpr std::string_view k_mask = "[REDACTED]";

bool secret_name(std::string_view name) {
  constexpr std::array<std::string_view, 4> k_suffixes = {"_KEY", "_TOKEN", "_SECRET", "_PASSWORD"};
  return std::any_of(k_suffixes.begin(), k_suffixes.end(), [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  });
}

} // namespace

void Redactor::add(std::string_view secret) {
  if (secret.size() < k_min_secret ||
      std::find(m_secrets.begin(), m_secrets.end(), secret) != m_secrets.end()) {
    return;
  }
  m_secrets.emplace_back(secret);
  std::sort(m_secrets.begin(), m_secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void Redactor::add_environment(char** environment) {
  for (char** entry = environment; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals != std::string_view::npos && secret_name(text.substr(0, equals))) {
      add(text.substr(equals + 1));
    }
  }
}

std::string Redactor::redact(std::string_view text) const {
  std::string out(text);
  for (const std::string& secret : m_secrets) {
    for (std::size_t at = out.find(secret); at != std::string::npos;
         at = out.find(secret, at + k_mask.size())) {
      out.replace(at, secret.size(), k_mask);
    }
  }
  return out;
}

} // namespace ralph
