#include "llm/provider_error.h"

#include "ralph/core/json.h"
#include "ralph/core/redactor.h"
#include "ralph/core/text.h"
#include "ralph/http/retry.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>

namespace ralph::llm {
namespace {

constexpr std::size_t k_max_message_bytes = 300;
constexpr std::size_t k_max_raw_body_bytes = 2000; // of a body that is not JSON, to describe it

struct Details {
  std::string message;
  std::string type; // the string `code` when there is one, else `type`
  std::string request_id;
  std::int64_t int_code = 0; // llama.cpp / vLLM put the HTTP status here
};

// Collapses whitespace runs (newlines included) to one space, trims, and caps the length.
std::string one_line(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\v') {
      space = !out.empty();
      continue;
    }
    if (space) {
      out.push_back(' ');
      space = false;
    }
    out.push_back(c);
  }
  if (out.size() <= max_bytes) {
    return out;
  }
  return std::string(utf8_prefix(out, max_bytes)) + "...";
}

// What a human should read from a body that is not JSON: an HTML page's title or its text.
std::string describe_non_json(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return "empty response body";
  }
  const std::size_t title = body.find("<title>");
  if (title != std::string_view::npos) {
    const std::size_t end = body.find("</title>", title);
    if (end != std::string_view::npos) {
      return one_line(body.substr(title + 7, end - title - 7), k_max_message_bytes);
    }
  }
  std::string text;
  bool in_tag = false;
  for (char c : body.substr(0, k_max_raw_body_bytes)) {
    if (c == '<') {
      in_tag = true;
      text.push_back(' ');
    } else if (c == '>') {
      in_tag = false;
    } else if (!in_tag) {
      text.push_back(c);
    }
  }
  return one_line(text, k_max_message_bytes);
}

// Reads the error object `error` (the member, or a flat body).
void read_error_object(const nlohmann::json& error, Details& details) {
  details.message = string_member(error, "message");
  const std::string_view code = string_member(error, "code");
  details.type = code.empty() ? string_member(error, "type") : code;
  details.int_code = int_member(error, "code").value_or(0);
}

Details read_payload(const nlohmann::json& payload) {
  Details details;
  details.request_id = string_member(payload, "request_id");
  const nlohmann::json* error = member(payload, "error");
  if (error == nullptr) {
    read_error_object(payload, details); // flat vLLM body, llama.cpp `error:` field
  } else if (error->is_string()) {
    details.message = error->get<std::string>(); // {"error":"Unauthorized"}
  } else {
    read_error_object(*error, details);
  }
  return details;
}

bool is_transient_type(std::string_view type) {
  static constexpr std::array<std::string_view, 8> k_transient = {
      "overloaded_error",  "api_error",           "server_error",
      "timeout_error",     "rate_limit_error",    "service_unavailable_error",
      "unavailable_error", "server_is_overloaded"};
  for (std::string_view transient : k_transient) {
    if (type == transient) {
      return true;
    }
  }
  return false;
}

std::string format_message(std::string_view provider, std::string_view where,
                           const Details& details) {
  std::string message = fmt::format("{}: {}", provider, where);
  if (!details.type.empty()) {
    message += ' ';
    message += one_line(details.type, 80);
  }
  if (!details.message.empty()) {
    message += ": ";
    message += one_line(details.message, k_max_message_bytes);
  }
  if (!details.request_id.empty()) {
    message += fmt::format(" (request {})", one_line(details.request_id, 80));
  }
  return message;
}

// Done before anything is cut, so no fragment of the secret survives at a cut.
void redact(Details& details, std::string_view secret) {
  mask_secret(details.message, secret);
  mask_secret(details.type, secret);
  mask_secret(details.request_id, secret);
}

// A 429 that waiting does not cure: no quota left, or one request larger than the per-minute
// token budget.
bool is_non_retryable(const Details& details) {
  return details.type == "insufficient_quota" ||
         details.message.find("Request too large") != std::string::npos;
}

} // namespace

Error status_error(std::string_view provider, const http::Response& response,
                   std::string_view secret) {
  // Errors are rare: a redacted copy of the body costs nothing that matters.
  std::string body = response.body;
  mask_secret(body, secret);
  Details details;
  const auto parsed = parse_json(body, "error body");
  if (parsed && parsed->is_object()) {
    details = read_payload(*parsed);
  } else {
    details.message = describe_non_json(body);
  }
  std::string_view request_id = response.header("x-request-id");
  if (request_id.empty()) {
    request_id = response.header("request-id");
  }
  if (!request_id.empty()) {
    details.request_id = request_id;
  }
  redact(details, secret);

  Error error;
  error.kind = ErrorKind::provider;
  error.http_status = response.status;
  error.message = format_message(provider, fmt::format("HTTP {}", response.status), details);
  const auto hint = http::retry_after(response);
  error.retry_after = hint.value_or(std::chrono::milliseconds(-1));
  error.retryable = http::should_retry(response) && !is_non_retryable(details);
  return error;
}

Error payload_error(std::string_view provider, const nlohmann::json& payload,
                    std::string_view secret) {
  Details details = read_payload(payload);
  redact(details, secret);
  Error error;
  error.kind = ErrorKind::provider;
  error.message = format_message(provider, "error in response", details);
  error.retryable = is_transient_type(details.type) || details.int_code == 408 ||
                    details.int_code == 429 || details.int_code >= 500;
  return error;
}

void redact(Error& error, std::string_view secret) {
  for (std::string* text : {&error.message, &error.file}) {
    mask_secret(*text, secret);
  }
}

void add_provider_prefix(Error& error, std::string_view provider) {
  const std::string prefix = fmt::format("{}: ", provider);
  if (error.message.compare(0, prefix.size(), prefix) != 0) {
    error.message.insert(0, prefix);
  }
}

} // namespace ralph::llm
