#pragma once

#include "server/access.h"
#include "server/event_bus.h"
#include "server/http_server.h"
#include "server/idempotency.h"
#include "server/session_host.h"

#include "ralph/server/serve.h"
#include "ralph/session/runtime.h"
#include "ralph/store/goal_queue.h"
#include "ralph/store/session_store.h"

#include <atomic>
#include <functional>
#include <string>

namespace ralph::server {

class Batches;

// What the routes share: the parts of one running server.
struct ServerParts {
  session::Runtime& runtime;
  const ServeRequest& request;
  store::SessionStore& store;
  bool postgres = false;
  EventBus& bus;
  Access& access;
  SessionHost& host;
  Batches& batches;
  Idempotency& idempotency;
  store::GoalQueue* queue = nullptr; // a PostgreSQL store's goal queue; null with SQLite
  std::atomic<int> streams{0};
};

void add_session_routes(HttpServer& server, ServerParts& parts);
void add_batch_routes(HttpServer& server, ServerParts& parts);
void add_stream_route(HttpServer& server, ServerParts& parts);
void add_web_routes(HttpServer& server, ServerParts& parts);

// The API's session routes, also called by the MCP tools (docs/reference/api.md): GET
// /api/v1/sessions, GET /api/v1/sessions/ID, POST /api/v1/sessions, and POST
// /api/v1/sessions/ID/(stop|resume|rerun|verify) with `params` {ID, action}.
HttpResponse list_sessions(ServerParts& parts, const HttpRequest& request);
HttpResponse show_session(ServerParts& parts, const HttpRequest& request);
HttpResponse start_session(ServerParts& parts, const HttpRequest& request);
HttpResponse act(ServerParts& parts, const HttpRequest& request);

// The JSON body of `value` as an answer.
HttpResponse json_response(int status, const nlohmann::json& value);

// The answer to an error: a caller's mistake (usage, config) is 400 naming the field its message
// quotes; anything else 500.
HttpResponse error_of(const Error& error);

// A POST's answer through the idempotency cache: `run` makes it unless the key was seen.
HttpResponse idempotent(ServerParts& parts, const HttpRequest& request,
                        const std::function<HttpResponse()>& run);

} // namespace ralph::server
