#include "server/server_parts.h"
#include "server/web_assets.h"

namespace ralph::server {
namespace {

const WebAsset* find_asset(std::string_view name) {
  for (const WebAsset& asset : web_assets()) {
    if (asset.name == name) {
      return &asset;
    }
  }
  return nullptr;
}

HttpResponse serve_asset(const WebAsset& asset, const HttpRequest& request) {
  HttpResponse response;
  response.headers = {{"ETag", std::string(asset.etag)},
                      {"Cache-Control", "no-cache"},
                      {"X-Content-Type-Options", "nosniff"},
                      {"Referrer-Policy", "no-referrer"}};
  if (request.header("if-none-match") == asset.etag) {
    response.status = 304;
    return response;
  }
  response.content_type = std::string(asset.content_type);
  response.body = std::string(asset.body);
  return response;
}

HttpResponse index_page(const HttpRequest& request) {
  if (const WebAsset* index = find_asset("index.html")) {
    HttpResponse response = serve_asset(*index, request);
    response.headers.emplace_back(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "frame-ancestors 'none'");
    return response;
  }
  HttpResponse response;
  response.content_type = "text/html; charset=utf-8";
  response.body = "<!doctype html><title>ralph</title><p>This ralph was built without its web "
                  "UI; the API is at /api/v1/.</p>";
  return response;
}

} // namespace

void add_web_routes(HttpServer& server, ServerParts& parts) {
  server.route("GET", "/login", [&parts](const HttpRequest& request) {
    const auto cookie = parts.access.login(request.query_value("code"));
    if (!cookie) {
      HttpResponse refused = error_response(
          401, "unauthorized",
          "this sign-in link was used already or is not this server's; run `ralph serve "
          "--print-url` for a new one");
      refused.content_type = "text/plain; charset=utf-8";
      refused.body = "This sign-in link was used already, or is not this server's.\n"
                     "Ask the running server for a new one: ralph serve --print-url\n";
      return refused;
    }
    HttpResponse response;
    response.status = 303;
    response.headers = {{"Location", "/"},
                        {"Set-Cookie", std::string(Access::k_cookie) + "=" + *cookie +
                                           "; HttpOnly; SameSite=Strict; Path=/"},
                        {"Cache-Control", "no-store"},
                        {"Referrer-Policy", "no-referrer"}};
    return response;
  });
  server.route("GET", "/assets/([A-Za-z0-9._-]+)", [](const HttpRequest& request) {
    const WebAsset* asset = find_asset(request.params[0]);
    return asset ? serve_asset(*asset, request)
                 : error_response(404, "not_found", "no asset " + request.params[0]);
  });
  server.route("GET", "/", [](const HttpRequest& request) { return index_page(request); });
  server.fallback([](const HttpRequest& request) {
    if (request.method != "GET" || request.path.rfind("/api/", 0) == 0) {
      return error_response(404, "not_found", "no route " + request.method + " " + request.path);
    }
    return index_page(request);
  });
}

} // namespace ralph::server
