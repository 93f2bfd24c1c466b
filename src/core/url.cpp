#include "ralph/core/url.h"

#include <regex>

namespace ralph {

std::string url_without_password(std::string_view url) {
  std::string shown(url);
  if (const auto scheme = shown.find("://"); scheme != std::string::npos) {
    const auto authority = scheme + 3;
    const auto end = shown.find_first_of("/?", authority);
    // The last '@' before the path: a password may itself hold an '@'.
    const auto at = shown.rfind('@', end == std::string::npos ? shown.size() : end);
    if (at != std::string::npos && at >= authority) {
      const auto colon = shown.find(':', authority);
      if (colon != std::string::npos && colon < at) {
        shown.replace(colon + 1, at - colon - 1, "***");
      }
    }
  }
  static const std::regex k_password(R"((password\s*=\s*)('[^']*'|[^&\s]*))");
  return std::regex_replace(shown, k_password, "$1***");
}

} // namespace ralph
