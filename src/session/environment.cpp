#include "ralph/session/environment.h"

#include <utility>

extern char** environ;

namespace ralph::session {

Environment Environment::process() {
  std::map<std::string, std::string, std::less<>> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals != std::string_view::npos) {
      variables.emplace(text.substr(0, equals), text.substr(equals + 1));
    }
  }
  return of(std::move(variables));
}

Environment Environment::of(std::map<std::string, std::string, std::less<>> variables) {
  Environment env;
  env.m_variables = std::move(variables);
  return env;
}

std::optional<std::string> Environment::get(std::string_view name) const {
  const auto found = m_variables.find(name);
  if (found == m_variables.end()) {
    return std::nullopt;
  }
  return found->second;
}

const char* Environment::c_str(std::string_view name) const {
  const auto found = m_variables.find(name);
  return found == m_variables.end() ? nullptr : found->second.c_str();
}

std::vector<std::string> Environment::names() const {
  std::vector<std::string> names;
  names.reserve(m_variables.size());
  for (const auto& [name, value] : m_variables) {
    names.push_back(name);
  }
  return names;
}

Redactor Environment::redactor() const {
  Redactor redactor;
  for (const auto& [name, value] : m_variables) {
    redactor.add_variable(name, value);
  }
  return redactor;
}

} // namespace ralph::session
