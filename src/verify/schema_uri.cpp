#include "schema_uri.h"

#include <cctype>

namespace ralph::verify {
namespace {

std::string compose(const UriParts& parts) {
  std::string out;
  if (parts.scheme) {
    out += *parts.scheme + ':';
  }
  if (parts.authority) {
    out += "//" + *parts.authority;
  }
  out += parts.path;
  if (parts.query) {
    out += '?' + *parts.query;
  }
  if (parts.fragment) {
    out += '#' + *parts.fragment;
  }
  return out;
}

// RFC 3986 section 5.2.4: "." and ".." segments folded away.
std::string remove_dot_segments(std::string_view input) {
  std::string output;
  while (!input.empty()) {
    if (input.substr(0, 3) == "../") {
      input.remove_prefix(3);
    } else if (input.substr(0, 2) == "./" || input.substr(0, 3) == "/./") {
      input.remove_prefix(2);
    } else if (input == "/.") {
      input = "/";
    } else if (input.substr(0, 4) == "/../" || input == "/..") {
      input = input.size() == 3 ? std::string_view("/") : input.substr(3);
      output.erase(std::min(output.rfind('/'), output.size()));
    } else if (input == "." || input == "..") {
      input = {};
    } else {
      const auto end = std::min(input.find('/', 1), input.size());
      output += input.substr(0, end);
      input.remove_prefix(end);
    }
  }
  return output;
}

std::string merge(const UriParts& base, const std::string& path) {
  if (base.authority && base.path.empty()) {
    return '/' + path;
  }
  const auto slash = base.path.rfind('/');
  return slash == std::string::npos ? path : base.path.substr(0, slash + 1) + path;
}

int hex_value(char c) {
  if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
    return c - '0';
  }
  const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
}

} // namespace

UriParts parse_uri(std::string_view text) {
  UriParts parts;
  if (const auto hash = text.find('#'); hash != std::string_view::npos) {
    parts.fragment = std::string(text.substr(hash + 1));
    text = text.substr(0, hash);
  }
  if (const auto question = text.find('?'); question != std::string_view::npos) {
    parts.query = std::string(text.substr(question + 1));
    text = text.substr(0, question);
  }
  if (const auto colon = text.find(':');
      colon != std::string_view::npos && colon > 0 &&
      text.substr(0, colon).find('/') == std::string_view::npos) {
    parts.scheme = std::string(text.substr(0, colon));
    text = text.substr(colon + 1);
  }
  if (text.substr(0, 2) == "//") {
    text.remove_prefix(2);
    const auto end = std::min(text.find('/'), text.size());
    parts.authority = std::string(text.substr(0, end));
    text = text.substr(end);
  }
  parts.path = std::string(text);
  return parts;
}

std::string resolve_uri(std::string_view base_text, std::string_view reference) {
  const UriParts ref = parse_uri(reference);
  const UriParts base = parse_uri(base_text);
  UriParts target;
  if (ref.scheme) {
    target = ref;
    target.path = remove_dot_segments(ref.path);
  } else if (ref.authority) {
    target = ref;
    target.scheme = base.scheme;
    target.path = remove_dot_segments(ref.path);
  } else if (ref.path.empty()) {
    target = base;
    target.query = ref.query ? ref.query : base.query;
    target.fragment = ref.fragment;
  } else {
    target.scheme = base.scheme;
    target.authority = base.authority;
    target.query = ref.query;
    target.fragment = ref.fragment;
    target.path = ref.path.front() == '/' ? remove_dot_segments(ref.path)
                                          : remove_dot_segments(merge(base, ref.path));
  }
  return compose(target);
}

std::pair<std::string, std::string> split_fragment(std::string_view uri) {
  const auto hash = uri.find('#');
  if (hash == std::string_view::npos) {
    return {std::string(uri), {}};
  }
  return {std::string(uri.substr(0, hash)), std::string(uri.substr(hash + 1))};
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) {
      return std::nullopt;
    }
    const int high = hex_value(text[i + 1]);
    const int low = hex_value(text[i + 2]);
    if (high < 0 || low < 0) {
      return std::nullopt;
    }
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

} // namespace ralph::verify
