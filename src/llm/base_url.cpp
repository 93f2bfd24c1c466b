#include "llm/base_url.h"

namespace ralph::llm {
namespace {

std::string_view trim_slashes(std::string_view base) {
  while (!base.empty() && base.back() == '/') {
    base.remove_suffix(1);
  }
  return base;
}

} // namespace

std::string join_url(std::string_view base, std::string_view path) {
  std::string url(trim_slashes(base));
  url.append(path);
  return url;
}

bool ends_with_version(std::string_view base) {
  base = trim_slashes(base);
  const std::size_t slash = base.rfind('/');
  if (slash == std::string_view::npos || slash + 2 > base.size() || base[slash + 1] != 'v') {
    return false;
  }
  for (char c : base.substr(slash + 2)) {
    if (c < '0' || c > '9') {
      return false;
    }
  }
  return slash + 2 < base.size();
}

} // namespace ralph::llm
