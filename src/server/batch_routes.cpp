#include "server/batches.h"
#include "server/server_parts.h"
#include "server/store_watch.h"

#include "ralph/store/goal_queue.h"

namespace ralph::server {
namespace {

const char* const k_batch = "/api/v1/batches/([A-Za-z0-9][A-Za-z0-9._-]*)";

} // namespace

void add_batch_routes(HttpServer& server, ServerParts& parts) {
  server.route("GET", "/api/v1/workers", [&parts](const HttpRequest&) {
    auto body = workers_json(parts.queue);
    return body ? json_response(200, *body) : error_of(body.error());
  });
  server.route("GET", "/api/v1/batches", [&parts](const HttpRequest&) {
    auto list = parts.batches.list();
    return list ? json_response(200, *list) : error_of(list.error());
  });
  server.route("GET", k_batch, [&parts](const HttpRequest& request) {
    auto batch = parts.batches.show(request.params[0], parts.store);
    if (!batch) {
      return error_of(batch.error());
    }
    if (batch->is_null()) {
      return error_response(404, "not_found", "no batch " + request.params[0]);
    }
    return json_response(200, *batch);
  });
  server.route("POST", "/api/v1/batches", [&parts](const HttpRequest& request) {
    return idempotent(parts, request, [&] {
      const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
      auto id = parts.batches.start(body);
      return id ? json_response(201, {{"id", *id}}) : error_of(id.error());
    });
  });
  server.route("POST", std::string(k_batch) + "/(stop|rerun-failed)",
               [&parts](const HttpRequest& request) {
                 return idempotent(parts, request, [&] {
                   const std::string& id = request.params[0];
                   if (request.params[1] == "stop") {
                     if (!parts.batches.stop(id)) {
                       return error_response(409, "conflict",
                                             "batch " + id + " is not running on this server");
                     }
                     return json_response(202, {{"id", id}, {"stopping", true}});
                   }
                   auto again = parts.batches.rerun_failed(id);
                   return again ? json_response(201, {{"id", *again}}) : error_of(again.error());
                 });
               });
}

} // namespace ralph::server
