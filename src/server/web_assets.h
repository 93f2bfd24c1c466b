#pragma once

#include <span>
#include <string_view>

namespace ralph::server {

// A file of the web UI (web/ in the source tree), embedded in the binary at build time.
struct WebAsset {
  std::string_view name; // "index.html", "app.js"
  std::string_view content_type;
  std::string_view etag; // a hash of the content, quoted
  std::string_view body;
};

std::span<const WebAsset> web_assets();

} // namespace ralph::server
