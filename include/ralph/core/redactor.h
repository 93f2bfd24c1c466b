#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ralph {

// Secrets shorter than this many bytes are not redacted: "abc" cannot be told from ordinary text,
// and masking it everywhere would garble every output. Such values are listed by too_short() so
// the caller can warn about them.
inline constexpr std::size_t k_min_secret_bytes = 4;

// What stands for a secret wherever one is masked.
inline constexpr std::string_view k_redacted = "[REDACTED]";

// Replaces every occurrence of `secret` in `text` with k_redacted (an empty secret: none).
void mask_secret(std::string& text, std::string_view secret);

// Replaces known secret values with k_redacted. Secrets are API keys handed to it and the
// values of environment variables named like *_KEY, *_TOKEN, *_SECRET or *_PASSWORD. It works on
// values: text about to be shown or written, before it is encoded. Each secret's JSON-escaped
// form is masked too, for JSON that arrives already encoded (a model's tool arguments).
// Thread-safe once built.
class Redactor {
public:
  // False (and nothing added) when `secret` is shorter than k_min_secret_bytes.
  bool add(std::string_view secret);
  // Adds the secret-looking variables of `environment` (NAME=value entries, nullptr-terminated);
  // the names of non-empty ones too short to redact go to too_short().
  void add_environment(char** environment);
  // Adds `value` when `name` looks like a secret's (as add_environment does for each entry).
  void add_variable(std::string_view name, std::string_view value);

  std::string redact(std::string_view text) const;
  // Every string (values and keys) in `value`, in place.
  void redact_values(nlohmann::json& value) const;
  // JSON text with every string redacted, then encoded again; unchanged when nothing was
  // secret. Text that is not JSON is redacted as text.
  std::string redact_json(std::string_view json) const;

  bool empty() const { return m_forms.empty(); }
  // Bytes of the longest form a secret takes (0 when there are none).
  std::size_t longest() const { return m_forms.empty() ? 0 : m_forms.front().size(); }
  const std::vector<std::string>& forms() const { return m_forms; }
  const std::vector<std::string>& too_short() const { return m_too_short; }

private:
  void add_form(std::string form);

  std::vector<std::string> m_forms; // secrets and their escaped forms, longest first
  std::vector<std::string> m_too_short;
};

// Redacts text that arrives in pieces (a streamed answer) so that no secret shows even when it
// is split across pieces: a tail that could be the start of a secret is held back until the next
// piece or finish(). The pieces returned, joined, never contain a secret. Not thread-safe;
// `redactor` must outlive it.
class StreamRedactor {
public:
  explicit StreamRedactor(const Redactor& redactor) : m_redactor(redactor) {}

  // What of `piece` (and of what was held back) can be shown now; possibly empty.
  std::string feed(std::string_view piece);
  // The held-back rest, redacted; the stream may start again afterwards.
  std::string finish();
  bool holding() const { return !m_held.empty(); }

private:
  const Redactor& m_redactor;
  std::string m_held;
};

} // namespace ralph
