// `[[notify]]` entries: each field checked once, so a mistake is a config error at load time,
// never a delivery that fails later.
#include "config_keys.h"

#include "ralph/core/quantity.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ralph::config_detail {
namespace {

constexpr std::string_view k_fields = "url, command, events, secret_env, headers, timeout";

// Headers ralph sets itself: an entry may not replace them (a receiver checks them).
constexpr std::string_view k_reserved_headers[] = {"content-type", "content-length", "user-agent",
                                                   "host"};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// An HTTP token (RFC 9110): what a header's name may be made of.
bool is_header_name(std::string_view name) {
  constexpr std::string_view k_marks = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::all_of(name.begin(), name.end(), [&](unsigned char c) {
    return std::isalnum(c) != 0 || k_marks.find(static_cast<char>(c)) != std::string_view::npos;
  });
}

std::optional<std::string> check_url(const std::string& url) {
  const std::string scheme = lower(url.substr(0, url.find("://")));
  if (url.find("://") == std::string::npos || (scheme != "http" && scheme != "https")) {
    return std::string("expected an http:// or https:// URL");
  }
  if (url.size() == scheme.size() + 3) {
    return std::string("the URL has no host");
  }
  if (std::any_of(url.begin(), url.end(),
                  [](unsigned char c) { return std::isspace(c) != 0 || c < 0x20; })) {
    return std::string("a URL holds no spaces or control characters");
  }
  return std::nullopt;
}

std::optional<std::string> read_field(NotifyTarget& target, const std::string& field,
                                      const nlohmann::json& value) {
  if (field == "url") {
    if (!value.is_string()) {
      return std::string("expected a URL string");
    }
    target.url = value.get<std::string>();
    return check_url(target.url);
  }
  if (field == "command") {
    auto argv = json_strings(value);
    if (!argv || argv->empty() || argv->front().empty()) {
      return std::string("expected a list of strings, the program and its arguments (run "
                         "without a shell): [\"notify-send\", \"ralph\"]");
    }
    target.command = std::move(*argv);
    return std::nullopt;
  }
  if (field == "events") {
    auto names = json_strings(value);
    std::vector<std::string_view> known;
    for (const auto& entry : k_notify_event_names) {
      known.emplace_back(entry.name);
    }
    const std::string all = fmt::format("{}", fmt::join(known, ", "));
    if (!names || names->empty()) {
      return fmt::format("expected a list of event names: {}", all);
    }
    target.events.clear();
    for (const std::string& name : *names) {
      const auto event = value_of(k_notify_event_names, name);
      if (!event) {
        return fmt::format("unknown event '{}' (one of {})", name, all);
      }
      target.events.push_back(*event);
    }
    return std::nullopt;
  }
  if (field == "secret_env") {
    if (!value.is_string() || !is_variable_name(value.get<std::string>())) {
      return std::string("expected the name of an environment variable holding the key "
                         "(secret_env = \"RALPH_WEBHOOK_SECRET\"), not the key itself");
    }
    target.secret_env = value.get<std::string>();
    return std::nullopt;
  }
  if (field == "headers") {
    if (!value.is_object()) {
      return std::string("expected a table of header names and values");
    }
    for (const auto& [name, text] : value.items()) {
      if (!is_header_name(name)) {
        return fmt::format("'{}' is not a header name", name);
      }
      const std::string low = lower(name);
      if (low.starts_with("x-ralph-") ||
          std::find(std::begin(k_reserved_headers), std::end(k_reserved_headers), low) !=
              std::end(k_reserved_headers)) {
        return fmt::format("{} is set by ralph", name);
      }
      if (!text.is_string() || text.get<std::string>().find_first_of("\r\n") != std::string::npos) {
        return fmt::format("{}: expected one line of text", name);
      }
      target.headers.emplace_back(name, text.get<std::string>());
    }
    return std::nullopt;
  }
  if (field == "timeout") {
    std::optional<std::chrono::milliseconds> timeout;
    if (value.is_number()) {
      timeout = std::chrono::milliseconds(std::llround(value.get<double>() * 1000.0));
    } else if (value.is_string()) {
      timeout = parse_duration(value.get<std::string>());
    }
    if (!timeout || *timeout < std::chrono::seconds(1) || *timeout > std::chrono::minutes(5)) {
      return std::string("expected a duration from 1s to 5m, like 10s");
    }
    target.timeout = *timeout;
    return std::nullopt;
  }
  return fmt::format("unknown field (a [[notify]] entry has {})", k_fields);
}

} // namespace

std::variant<NotifyTarget, NotifyProblem> parse_notify_target(const nlohmann::json& fields) {
  if (!fields.is_object()) {
    return NotifyProblem{.field = "",
                         .message = "expected a table ([[notify]] with url or command)"};
  }
  NotifyTarget target;
  for (const auto& [field, value] : fields.items()) {
    if (auto problem = read_field(target, field, value)) {
      return NotifyProblem{.field = field, .message = std::move(*problem)};
    }
  }
  if (target.url.empty() == target.command.empty()) {
    return NotifyProblem{.field = "", .message = "give either url or command"};
  }
  if (!target.secret_env.empty() && target.url.empty()) {
    return NotifyProblem{.field = "secret_env", .message = "signs webhooks only (give url)"};
  }
  if (!target.headers.empty() && target.url.empty()) {
    return NotifyProblem{.field = "headers", .message = "are for webhooks only (give url)"};
  }
  return target;
}

bool is_variable_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
    return false;
  }
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) != 0 || c == '_'; });
}

std::optional<std::vector<std::string>> json_strings(const nlohmann::json& value) {
  if (!value.is_array()) {
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (const auto& item : value) {
    if (!item.is_string()) {
      return std::nullopt;
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

} // namespace ralph::config_detail
