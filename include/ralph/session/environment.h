#pragma once

#include "ralph/core/redactor.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ralph::session {

// The environment a session reads, through one door: configuration variables (RALPH_*), provider
// keys (OPENAI_API_KEY, ...), the user's folders (HOME, XDG_CONFIG_HOME) and the secret-looking
// values everything it writes is redacted of. A command line takes the process's; a server may
// give each caller its own. A snapshot: later changes of the process's environment are not seen.
class Environment {
public:
  // The variables of this process, as they are now.
  static Environment process();
  // Exactly `variables`: a caller's own keys, a test's.
  static Environment of(std::map<std::string, std::string, std::less<>> variables);

  // The value of `name`; nullopt when unset.
  std::optional<std::string> get(std::string_view name) const;
  // Same, as a C string valid while this Environment lives; nullptr when unset.
  const char* c_str(std::string_view name) const;
  // The names of the variables, in order.
  std::vector<std::string> names() const;
  // A redactor of every secret-looking variable (API keys included).
  Redactor redactor() const;

private:
  std::map<std::string, std::string, std::less<>> m_variables;
};

} // namespace ralph::session
