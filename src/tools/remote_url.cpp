#include "remote_url.h"

#include "ralph/core/redactor.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace ralph::tools {
namespace {

// Where the credentials of a URL are: "scheme://USERINFO@host/...".
struct Userinfo {
  std::size_t begin = 0;
  std::size_t size = 0;
  std::string_view user;
  std::string_view password;
  bool http = false;
};

std::optional<Userinfo> userinfo_of(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return std::nullopt; // a path, a remote's name or scp-like `user@host:path`: no password
  }
  const std::size_t begin = scheme_end + 3;
  const std::string_view authority =
      url.substr(begin, std::min(url.find_first_of("/?#", begin), url.size()) - begin);
  const std::size_t at = authority.rfind('@');
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  std::string scheme(url.substr(0, scheme_end));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  const std::string_view userinfo = authority.substr(0, at);
  const std::size_t colon = userinfo.find(':');
  return Userinfo{.begin = begin,
                  .size = at,
                  .user = userinfo.substr(0, colon),
                  .password = colon == std::string_view::npos ? std::string_view()
                                                              : userinfo.substr(colon + 1),
                  .http = scheme == "http" || scheme == "https"};
}

// "%40" as "@": git may print a credential decoded.
std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(text[i + 1]) &&
        std::isxdigit(text[i + 2])) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

} // namespace

std::string shown_remote(std::string_view remote) {
  const auto userinfo = userinfo_of(remote);
  if (!userinfo || (!userinfo->http && userinfo->password.empty())) {
    return std::string(remote);
  }
  const std::string masked =
      userinfo->http ? "***" : std::string(userinfo->user) + ":***"; // ssh://git@…: harmless
  return std::string(remote.substr(0, userinfo->begin)) + masked +
         std::string(remote.substr(userinfo->begin + userinfo->size));
}

Error without_credentials(Error error, std::string_view remote) {
  const auto userinfo = userinfo_of(remote);
  if (!userinfo) {
    return error;
  }
  Redactor secrets;
  // The whole URL first, so that it reads as shown_remote's form where git quoted it whole.
  std::string message = error.message;
  for (std::size_t at = message.find(remote); at != std::string::npos;
       at = message.find(remote, at)) {
    const std::string shown = shown_remote(remote);
    message.replace(at, remote.size(), shown);
    at += shown.size();
  }
  for (const std::string_view secret : {userinfo->password, userinfo->http ? userinfo->user : ""}) {
    if (!secret.empty()) {
      secrets.add(secret);
      secrets.add(percent_decoded(secret));
    }
  }
  error.message = secrets.redact(message);
  return error;
}

} // namespace ralph::tools
