#include "ralph/core/redactor.h"

#include "ralph/core/json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

namespace ralph {
namespace {

bool secret_name(std::string_view name) {
  constexpr std::array<std::string_view, 4> k_suffixes = {"_KEY", "_TOKEN", "_SECRET", "_PASSWORD"};
  return std::any_of(k_suffixes.begin(), k_suffixes.end(), [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  });
}

// The secret as it appears inside a JSON string: quotes, backslashes and control characters
// escaped, the way nlohmann-json and most encoders write them.
std::string json_escaped(std::string_view secret) {
  const std::string quoted = nlohmann::json(std::string(secret))
                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

// Redacts every string in `value`; true when one changed.
bool redact_in_place(nlohmann::json& value, const Redactor& redactor) {
  if (value.is_string()) {
    std::string& text = value.get_ref<std::string&>();
    std::string redacted = redactor.redact(text);
    if (redacted == text) {
      return false;
    }
    text = std::move(redacted);
    return true;
  }
  if (value.is_array()) {
    bool changed = false;
    for (auto& item : value) {
      changed = redact_in_place(item, redactor) || changed;
    }
    return changed;
  }
  if (!value.is_object()) {
    return false;
  }
  bool changed = false;
  nlohmann::json renamed = nlohmann::json::object();
  for (auto& [key, item] : value.items()) {
    changed = redact_in_place(item, redactor) || changed;
    std::string name = redactor.redact(key);
    changed = changed || name != key;
    renamed[std::move(name)] = std::move(item);
  }
  value = std::move(renamed);
  return changed;
}

} // namespace

bool Redactor::add(std::string_view secret) {
  if (secret.size() < k_min_secret_bytes) {
    return false;
  }
  add_form(std::string(secret));
  add_form(json_escaped(secret));
  return true;
}

void Redactor::add_form(std::string form) {
  if (std::find(m_forms.begin(), m_forms.end(), form) != m_forms.end()) {
    return;
  }
  m_forms.push_back(std::move(form));
  std::stable_sort(m_forms.begin(), m_forms.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void Redactor::add_environment(char** environment) {
  for (char** entry = environment; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals != std::string_view::npos) {
      add_variable(text.substr(0, equals), text.substr(equals + 1));
    }
  }
}

void Redactor::add_variable(std::string_view name, std::string_view value) {
  if (secret_name(name) && !value.empty() && !add(value)) {
    m_too_short.emplace_back(name);
  }
}

void mask_secret(std::string& text, std::string_view secret) {
  if (secret.empty()) {
    return;
  }
  for (std::size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + k_redacted.size())) {
    text.replace(at, secret.size(), k_redacted);
  }
}

std::string Redactor::redact(std::string_view text) const {
  std::string out(text);
  // Longest first, so a secret containing another goes whole.
  for (const std::string& secret : m_forms) {
    mask_secret(out, secret);
  }
  return out;
}

void Redactor::redact_values(nlohmann::json& value) const {
  if (!m_forms.empty()) {
    redact_in_place(value, *this);
  }
}

std::string Redactor::redact_json(std::string_view json) const {
  if (m_forms.empty()) {
    return std::string(json);
  }
  // Untrusted text (tool arguments): parse_json bounds the nesting that redact_in_place and
  // dump would recurse through.
  auto parsed = parse_json(json, "redacted JSON");
  if (!parsed) {
    return redact(json);
  }
  if (!redact_in_place(*parsed, *this)) {
    // Still masks a secret the parse could not see as a value (an escape the encoder chose
    // differently would need decoding, which parsing did).
    return redact(json);
  }
  return parsed->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string StreamRedactor::feed(std::string_view piece) {
  m_held.append(piece);
  const std::string_view pending = m_held;
  const auto& forms = m_redactor.forms();
  // Hold back the longest tail that a secret starts with (the next piece may complete it), and
  // any secret the cut would split: the part shown is redacted on its own.
  std::size_t cut = pending.size();
  for (std::size_t length = std::min(pending.size(), m_redactor.longest()); length > 0; --length) {
    const std::string_view tail = pending.substr(pending.size() - length);
    if (std::any_of(forms.begin(), forms.end(), [&](const std::string& form) {
          return form.size() > length && form.starts_with(tail);
        })) {
      cut = pending.size() - length;
      break;
    }
  }
  for (bool moved = true; moved;) {
    moved = false;
    for (const std::string& form : forms) {
      for (std::size_t at = cut - std::min(cut, form.size() - 1); at < cut && !moved; ++at) {
        if (pending.substr(at).starts_with(form) && at + form.size() > cut) {
          cut = at;
          moved = true;
        }
      }
    }
  }
  std::string out = m_redactor.redact(pending.substr(0, cut));
  m_held.erase(0, cut);
  return out;
}

std::string StreamRedactor::finish() {
  std::string out = m_redactor.redact(m_held);
  m_held.clear();
  return out;
}

} // namespace ralph
