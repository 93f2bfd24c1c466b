#include "ralph/http/retry.h"

#include "ralph/core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <random>
#include <string>

namespace ralph::http {
namespace {

using std::chrono::milliseconds;

// A non-negative decimal number ("2", "1.5"); nullopt for anything else (inf, nan, "-1", "2s").
std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())) != 0)) {
    return std::nullopt;
  }
  double value = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

milliseconds to_millis(double ms) {
  // Beyond any sane cap; clamping keeps the conversion defined for absurd hints.
  constexpr double k_max_ms = 1e15;
  return milliseconds(std::llround(std::min(ms, k_max_ms)));
}

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

// IMF-fixdate, the only HTTP-date form servers send today: "Sun, 06 Nov 1994 08:49:37 GMT".
// Parsed by hand because strptime's month names follow the process locale. In seconds: the
// clock's nanoseconds reach only years 1678-2261, and any four-digit year must stay defined.
std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view text) {
  text = trim(text);
  if (text.size() != 29 || text[3] != ',' || text.substr(25) != " GMT") {
    return std::nullopt;
  }
  constexpr std::array<std::string_view, 12> k_months = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto month = std::find(k_months.begin(), k_months.end(), text.substr(8, 3));
  const auto day = parse_int(text.substr(5, 2));
  const auto year = parse_int(text.substr(12, 4));
  const auto hour = parse_int(text.substr(17, 2));
  const auto minute = parse_int(text.substr(20, 2));
  const auto second = parse_int(text.substr(23, 2));
  if (month == k_months.end() || !day || !year || !hour || !minute || !second || text[19] != ':' ||
      text[22] != ':' || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{
      std::chrono::year(*year),
      std::chrono::month(static_cast<unsigned>(month - k_months.begin() + 1)),
      std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok()) {
    return std::nullopt;
  }
  return std::chrono::sys_days(date) + std::chrono::hours(*hour) + std::chrono::minutes(*minute) +
         std::chrono::seconds(*second);
}

Error status_error(const Response& response, std::optional<milliseconds> hint) {
  Error error;
  error.kind = ErrorKind::provider;
  error.message = fmt::format("HTTP {}", response.status);
  error.retryable = true;
  error.http_status = response.status;
  error.retry_after = hint.value_or(milliseconds(-1));
  return error;
}

} // namespace

milliseconds backoff_delay(const RetryPolicy& policy, int attempt) {
  double delay = static_cast<double>(policy.base_delay.count());
  for (int i = 1; i < attempt && delay < static_cast<double>(policy.max_delay.count()); ++i) {
    delay *= 2;
  }
  delay = std::min(delay, static_cast<double>(policy.max_delay.count()));
  // One generator per thread, seeded on first use: most requests never wait, and seeding costs
  // a system call. Jitter needs no cryptographic quality.
  thread_local std::minstd_rand rng(std::random_device{}());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  // 1 - U[0,1) lies in (0, 1], so the factor lies in (0.75, 1].
  const double factor = 1.0 - 0.25 * unit(rng);
  return milliseconds(std::llround(delay * factor));
}

bool is_retryable_status(int status) {
  return status == 408 || status == 409 || status == 429 || status >= 500;
}

std::optional<milliseconds> retry_after(const Response& response,
                                        std::chrono::system_clock::time_point now) {
  if (auto ms = parse_number(response.header("retry-after-ms"))) {
    return to_millis(*ms);
  }
  const std::string_view value = response.header("retry-after");
  if (auto seconds = parse_number(value)) {
    return to_millis(*seconds * 1000.0);
  }
  const auto date = parse_http_date(value);
  const auto now_seconds = std::chrono::floor<std::chrono::seconds>(now);
  if (!date || *date < now_seconds) {
    return std::nullopt;
  }
  // Whole seconds both, so nothing is converted to the clock's nanoseconds; at most ~10^4 years
  // apart, which milliseconds hold.
  return std::chrono::duration_cast<milliseconds>(*date - now_seconds);
}

std::optional<milliseconds> retry_after(const Response& response) {
  return retry_after(response, std::chrono::system_clock::now());
}

bool should_retry(const Response& response) {
  if (response.status >= 400) {
    const std::string_view hint = trim(response.header("x-should-retry"));
    if (hint == "true") {
      return true;
    }
    if (hint == "false") {
      return false;
    }
  }
  return is_retryable_status(response.status);
}

Result<Response> send_with_retry(Transport& transport, const Request& request, const BodySink& sink,
                                 const CancelToken& cancel, const RetryPolicy& policy, Clock& clock,
                                 const RetryHooks& hooks) {
  // Once a byte reached the caller, a retry would deliver the start of the body twice.
  bool delivered = false;
  BodySink tracking;
  if (sink) {
    tracking = [&](std::string_view chunk) {
      delivered = delivered || !chunk.empty();
      return sink(chunk);
    };
  }
  for (int attempt = 1;; ++attempt) {
    auto result = transport.send(request, tracking, cancel);
    const bool last = attempt >= policy.max_attempts || delivered || cancel.cancelled();
    Error cause;
    milliseconds delay{0};
    if (!result) {
      if (!result.error().retryable || last || (hooks.give_up && hooks.give_up(result.error()))) {
        return result;
      }
      cause = result.error();
      delay = backoff_delay(policy, attempt);
    } else {
      const Response& response = *result;
      if (last || !should_retry(response) ||
          (hooks.non_retryable && hooks.non_retryable(response))) {
        return result;
      }
      const auto hint = retry_after(response);
      if (hint && *hint > policy.max_retry_after) {
        return result; // the server asks for longer than we are willing to wait
      }
      delay = hint && hint->count() > 0 ? *hint : backoff_delay(policy, attempt);
      cause = status_error(response, hint);
    }
    if (hooks.on_retry) {
      hooks.on_retry(cause, attempt, delay);
    }
    if (!clock.sleep_for(delay, cancel)) {
      return fail(ErrorKind::cancelled, "cancelled while waiting to retry");
    }
  }
}

} // namespace ralph::http
