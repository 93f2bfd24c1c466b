#include "server/batches.h"
#include "server/server_parts.h"
#include "server/views.h"

#include "ralph/app/batch/goals_file.h"
#include "ralph/core/text.h"
#include "ralph/core/try.h"
#include "ralph/engine/io.h"
#include "ralph/loop/records.h"
#include "ralph/session/resume.h"
#include "ralph/session/settings.h"
#include "ralph/session/verify_answer.h"
#include "ralph/store/session_filter.h"
#include "ralph/store/session_owner.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <variant>

namespace ralph::server {
namespace {

constexpr std::size_t k_head_bytes = 2048;
const char* const k_id = "([A-Za-z0-9][A-Za-z0-9._-]*)";

std::string route(const std::string& pattern) {
  std::string out = pattern;
  for (std::size_t at = out.find("{id}"); at != std::string::npos; at = out.find("{id}")) {
    out.replace(at, 4, k_id);
  }
  return out;
}

// The field a goals-line problem names ("request: 'max_iterations' x: ..." names max_iterations).
std::string field_of(const std::string& message) {
  static const std::regex k_quoted("'([A-Za-z0-9_.]+)'");
  static const std::regex k_leading("^request: ([a-z_.]+) ");
  std::smatch match;
  if (std::regex_search(message, match, k_quoted) || std::regex_search(message, match, k_leading)) {
    return match[1].str();
  }
  return {};
}

} // namespace

HttpResponse error_of(const Error& error) {
  const bool caller = error.kind == ErrorKind::usage || error.kind == ErrorKind::config;
  return error_response(caller ? 400 : 500, caller ? "bad_request" : "internal", error.message,
                        caller ? field_of(error.message) : std::string());
}

namespace {

std::optional<Config> config_of(const store::SessionRow& row) {
  auto config = session::recorded_settings(row, {});
  return config ? std::optional<Config>(std::move(*config)) : std::nullopt;
}

SessionFacts facts_of(ServerParts& parts, const store::SessionRow& row) {
  const bool hosted = parts.host.hosted(row.id);
  return {.running = hosted || store::session_owned(row),
          .hosted = hosted,
          .batch = parts.batches.batch_of(row.id)};
}

int int_param(const HttpRequest& request, const std::string& name, int fallback, int most) {
  const std::string text = request.query_value(name);
  if (text.empty()) {
    return fallback;
  }
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || value < 0) {
    return -1;
  }
  return static_cast<int>(std::min<long>(value, most));
}

} // namespace

HttpResponse list_sessions(ServerParts& parts, const HttpRequest& request) {
  store::SessionFilter filter;
  const std::string status = request.query_value("status");
  if (status == "stopped") {
    filter.stopped = true;
  } else if (!status.empty()) {
    const auto parsed = status_from_string(status);
    if (!parsed) {
      return error_response(400, "bad_request", "status: unknown status '" + status + "'",
                            "status");
    }
    filter.statuses.push_back(*parsed);
  }
  if (request.query_value("verified") == "true") {
    filter.verified = true;
  }
  const std::string kind = request.query_value("kind");
  if (!kind.empty()) {
    const auto parsed = value_of(store::k_session_kind_names, kind);
    if (!parsed) {
      return error_response(400, "bad_request", "kind: unknown kind '" + kind + "'", "kind");
    }
    filter.kinds.push_back(*parsed);
  }
  const int limit = int_param(request, "limit", 50, 500);
  if (limit <= 0) {
    return error_response(400, "bad_request", "limit: a whole number from 1 to 500", "limit");
  }
  auto rows = parts.store.list_sessions();
  if (!rows) {
    return error_of(rows.error());
  }
  const auto owned = [&](const store::SessionRow& row) {
    return parts.host.hosted(row.id) || store::session_owned(row);
  };
  std::vector<store::SessionRow> selected = store::select_sessions(std::move(*rows), filter, owned);
  const std::string batch = request.query_value("batch");
  std::set<std::string> in_batch;
  if (!batch.empty()) {
    auto sessions = parts.batches.sessions_of(batch);
    if (!sessions) {
      return error_of(sessions.error());
    }
    in_batch = std::move(*sessions);
  }
  const std::string text = to_lower_ascii(request.query_value("q"));
  std::erase_if(selected, [&](const store::SessionRow& row) {
    return (!batch.empty() && in_batch.count(row.id) == 0) ||
           (!text.empty() && to_lower_ascii(row.goal).find(text) == std::string::npos &&
            row.id.find(text) == std::string::npos);
  });
  // The cursor is the last id of the page before (the list is newest first).
  const std::string cursor = request.query_value("cursor");
  auto begin = selected.begin();
  if (!cursor.empty()) {
    const auto at_cursor =
        std::find_if(selected.begin(), selected.end(),
                     [&](const store::SessionRow& row) { return row.id == cursor; });
    // A cursor whose session went meanwhile: the sessions made before it (ids begin with the time).
    begin = at_cursor != selected.end()
                ? std::next(at_cursor)
                : std::find_if(selected.begin(), selected.end(),
                               [&](const store::SessionRow& row) { return row.id < cursor; });
  }
  nlohmann::json list = nlohmann::json::array();
  auto at = begin;
  for (; at != selected.end() && static_cast<int>(list.size()) < limit; ++at) {
    list.push_back(session_summary(*at, facts_of(parts, *at), config_of(*at)));
  }
  const nlohmann::json next =
      at == selected.end() || list.empty() ? nlohmann::json(nullptr) : list.back()["id"];
  return json_response(200, {{"sessions", std::move(list)}, {"next_cursor", next}});
}

namespace {

// A session's record, or the answer when there is none (404) or the store failed.
using RecordOrAnswer = std::variant<store::SessionRecord, HttpResponse>;

RecordOrAnswer record_of(ServerParts& parts, const std::string& id) {
  auto record = parts.store.load(id);
  if (!record) {
    return error_of(record.error());
  }
  if (!*record) {
    return error_response(404, "not_found", "no session " + id);
  }
  return std::move(**record);
}

} // namespace

HttpResponse show_session(ServerParts& parts, const HttpRequest& request) {
  auto found = record_of(parts, request.params[0]);
  if (std::holds_alternative<HttpResponse>(found)) {
    return std::get<HttpResponse>(found);
  }
  store::SessionRecord& record = std::get<store::SessionRecord>(found);
  nlohmann::json detail = session_detail(record, facts_of(parts, record.session),
                                         config_of(record.session), k_head_bytes);
  detail["candidates"] = parts.batches.candidates_of(record);
  return json_response(200, detail);
}

namespace {

// Row `seq` of attempt `iteration` of a session's `rows` (the route's second and third
// parameters) given to `answer`; 404 naming `what` when there is none.
template <typename Row>
HttpResponse answer_row(ServerParts& parts, const HttpRequest& request,
                        std::vector<Row> store::SessionRecord::*rows, const char* what,
                        const std::function<HttpResponse(const Row&)>& answer) {
  auto found = record_of(parts, request.params[0]);
  if (std::holds_alternative<HttpResponse>(found)) {
    return std::get<HttpResponse>(found);
  }
  const store::SessionRecord& record = std::get<store::SessionRecord>(found);
  const int iteration = std::atoi(request.params[1].c_str());
  const int seq = std::atoi(request.params[2].c_str());
  for (const Row& row : record.*rows) {
    if (row.iteration == iteration && row.seq == seq) {
      return answer(row);
    }
  }
  return error_response(404, "not_found",
                        std::string("no ") + what + " " + request.params[2] + " in attempt " +
                            request.params[1]);
}

HttpResponse show_tool_call(ServerParts& parts, const HttpRequest& request) {
  return answer_row<store::ToolCallRow>(
      parts, request, &store::SessionRecord::tool_calls, "tool call",
      [](const store::ToolCallRow& call) { return json_response(200, tool_call_detail(call)); });
}

HttpResponse show_verdict_output(ServerParts& parts, const HttpRequest& request) {
  return answer_row<store::VerdictRow>(parts, request, &store::SessionRecord::verdicts, "verdict",
                                       [](const store::VerdictRow& verdict) {
                                         HttpResponse response;
                                         response.content_type = "text/plain; charset=utf-8";
                                         response.body = verdict.output;
                                         return response;
                                       });
}

HttpResponse show_events(ServerParts& parts, const HttpRequest& request, bool download) {
  const std::string id = request.params[0];
  std::ifstream in(parts.host.events_file(id));
  if (!in) {
    return error_response(404, "not_found", "no events were kept for session " + id);
  }
  if (download) {
    HttpResponse response;
    response.content_type = "application/x-ndjson";
    response.headers.emplace_back("Content-Disposition",
                                  "attachment; filename=\"" + id + ".ndjson\"");
    std::ostringstream whole;
    whole << in.rdbuf();
    response.body = std::move(whole).str();
    return response;
  }
  const int after = int_param(request, "after", 0, 1 << 30);
  const int limit = int_param(request, "limit", 500, 5000);
  if (after < 0 || limit <= 0) {
    return error_response(400, "bad_request", "after, limit: whole numbers", "limit");
  }
  const std::string type = request.query_value("type");
  nlohmann::json events = nlohmann::json::array();
  std::string line;
  int number = 0;
  bool more = false;
  while (std::getline(in, line)) {
    ++number;
    if (number <= after || line.empty()) {
      continue;
    }
    nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
    if (!event.is_object() || (!type.empty() && event.value("type", "") != type)) {
      continue;
    }
    if (static_cast<int>(events.size()) == limit) {
      more = true;
      break;
    }
    event["n"] = number;
    events.push_back(std::move(event));
  }
  const nlohmann::json next = more ? nlohmann::json(events.back()["n"]) : nlohmann::json(nullptr);
  return json_response(200, {{"events", std::move(events)}, {"next_cursor", next}});
}

// The diff of attempt N (its start and end snapshots), or of the whole session (the first
// attempt's start to the last snapshot): `git diff` in the session's workspace.
HttpResponse show_diff(ServerParts& parts, const HttpRequest& request) {
  auto found = record_of(parts, request.params[0]);
  if (std::holds_alternative<HttpResponse>(found)) {
    return std::get<HttpResponse>(found);
  }
  const store::SessionRecord& record = std::get<store::SessionRecord>(found);
  const std::string prefix = "refs/ralph/snapshots/" + record.session.id + "/";
  std::string from;
  std::string to;
  if (request.has_query("attempt")) {
    const int attempt = int_param(request, "attempt", 0, 100000);
    if (attempt <= 0) {
      return error_response(400, "bad_request", "attempt: a whole number from 1", "attempt");
    }
    from = prefix + std::to_string(attempt) + "-start";
    to = prefix + std::to_string(attempt) + "-end";
  } else {
    from = prefix + "1-start";
    to = prefix + std::to_string(std::max(1, record.session.iterations)) + "-end";
  }
  engine::BlockingIo io;
  const CancelToken cancel;
  const std::string dir = record.session.workspace;
  auto run = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {"git", "-C", dir};
    argv.insert(argv.end(), args.begin(), args.end());
    return io.runner().run({.argv = argv,
                            .timeout = std::chrono::seconds(60),
                            .output_limit = 64 * 1024 * 1024,
                            .merge_stderr = false},
                           cancel);
  };
  // Without the end of the last attempt (it runs, or was cut short): against the work tree now.
  auto has = [&](const std::string& ref) {
    auto result = run({"rev-parse", "--verify", "--quiet", ref});
    return result && result->exit_code == 0;
  };
  if (!has(from)) {
    return error_response(404, "not_found",
                          "no snapshots of this session's workspace: only sessions this server "
                          "ran in a git repository have them");
  }
  std::vector<std::string> args = {"diff", "--no-renames", "--binary", from};
  if (has(to)) {
    args.push_back(to);
  } else if (request.has_query("attempt")) {
    return error_response(404, "not_found",
                          "attempt " + request.query_value("attempt") +
                              " has no snapshot of its end");
  }
  args.insert(args.end(), {"--", ".", ":(exclude,glob)**/.ralph/**"});
  auto diff = run(args);
  if (!diff || diff->exit_code != 0) {
    return error_response(500, "internal", "git diff failed in " + dir);
  }
  HttpResponse response;
  response.content_type = "text/x-diff; charset=utf-8";
  response.body = parts.runtime.redactor().redact(diff->output);
  return response;
}

// A goals-file line as a session of this server.
Result<session::SessionRequest> request_of(ServerParts& parts, const std::string& body) {
  nlohmann::json line = nlohmann::json::parse(body, nullptr, false);
  if (!line.is_object()) {
    return fail(ErrorKind::usage, "the body is not a JSON object");
  }
  if (!line.contains("goal")) {
    return fail(ErrorKind::usage, "'goal': required");
  }
  if (!line.contains("id")) {
    line["id"] = "api";
  }
  if (line.contains("repo")) {
    return fail(ErrorKind::usage,
                "'repo': a goal on a repository runs as a batch (POST /api/v1/batches)");
  }
  TRY_ASSIGN(app::BatchGoal goal,
             app::goal_from_spec(line.dump(), "request", parts.request.config));
  std::filesystem::path workspace = parts.request.workspace;
  if (!goal.source.empty()) {
    std::error_code error;
    workspace = std::filesystem::canonical(goal.source, error);
    if (error || !std::filesystem::is_directory(workspace)) {
      return fail(ErrorKind::usage, "'workspace': " + goal.source.string() + " is not a folder");
    }
  }
  TRY(session::check_prices(goal.config));
  session::SessionRequest request;
  request.goal = goal.goal;
  request.workspace = workspace;
  request.config = std::move(goal.config);
  return request;
}

HttpResponse started(ServerParts& parts, int status, const Result<std::string>& id) {
  if (!id) {
    return error_of(id.error());
  }
  nlohmann::json out = {{"id", *id}};
  if (auto row = parts.store.find_session(*id); row && *row) {
    out["session"] = session_summary(**row, facts_of(parts, **row), config_of(**row));
  }
  return json_response(status, out);
}

} // namespace

HttpResponse start_session(ServerParts& parts, const HttpRequest& request) {
  auto session = request_of(parts, request.body);
  if (!session) {
    return error_of(session.error());
  }
  return started(parts, 201, parts.host.start(std::move(*session)));
}

namespace {

HttpResponse verify_now(ServerParts& parts, const store::SessionRecord& record) {
  const store::SessionRow& row = record.session;
  auto config = session::recorded_settings(row, parts.request.flags);
  if (!config) {
    return error_of(config.error());
  }
  std::string answer = row.answer;
  if (answer.empty() && !record.attempts.empty()) {
    answer = record.attempts.back().answer;
  }
  engine::BlockingIo io;
  const CancelToken cancel;
  auto check = session::verify_answer(
      parts.runtime, *config, row.workspace,
      {.goal = row.goal, .answer = answer, .iteration = std::max(1, row.iterations)}, io, cancel);
  if (!check) {
    return error_of(check.error());
  }
  nlohmann::json verdicts = nlohmann::json::array();
  int seq = 0;
  for (const verify::Verdict& verdict : check->attempt.verdicts) {
    verdicts.push_back(verdict_view(
        loop::verdict_row(verdict, row.id, row.iterations, ++seq, parts.runtime.redactor()),
        std::nullopt, k_head_bytes));
  }
  return json_response(200, {{"passed", check->verified},
                             {"feedback", parts.runtime.redactor().redact(check->feedback)},
                             {"verdicts", std::move(verdicts)}});
}

} // namespace

HttpResponse act(ServerParts& parts, const HttpRequest& request) {
  const std::string& id = request.params[0];
  const std::string& action = request.params[1];
  if (action == "stop") {
    if (!parts.host.stop(id)) {
      return error_response(409, "conflict", "session " + id + " is not running on this server");
    }
    return json_response(202, {{"id", id}, {"stopping", true}});
  }
  auto found = record_of(parts, id);
  if (std::holds_alternative<HttpResponse>(found)) {
    return std::get<HttpResponse>(found);
  }
  store::SessionRecord& record = std::get<store::SessionRecord>(found);
  if (action == "resume") {
    if (parts.host.hosted(id)) {
      return error_response(409, "conflict", "session " + id + " is running on this server");
    }
    auto plan = session::plan_resume(std::move(record), parts.request.flags);
    if (!plan) {
      return error_response(409, "conflict", plan.error().message);
    }
    return started(parts, 202, parts.host.start(std::move(plan->request)));
  }
  if (action == "rerun") {
    const store::SessionRow& row = record.session;
    auto config = session::recorded_settings(row, parts.request.flags);
    if (!config) {
      return error_of(config.error());
    }
    session::SessionRequest again;
    again.goal = row.goal;
    again.workspace = row.workspace;
    again.config = std::move(*config);
    return started(parts, 201, parts.host.start(std::move(again)));
  }
  return verify_now(parts, record);
}

HttpResponse json_response(int status, const nlohmann::json& value) {
  HttpResponse response;
  response.status = status;
  response.body = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return response;
}

HttpResponse idempotent(ServerParts& parts, const HttpRequest& request,
                        const std::function<HttpResponse()>& run) {
  if (parts.request.read_only) {
    return error_response(403, "read_only", "this server is read-only (--read-only)");
  }
  const std::string key = request.header("idempotency-key");
  if (key.empty()) {
    return run();
  }
  if (key.size() > 200) {
    return error_response(400, "bad_request", "Idempotency-Key: at most 200 characters",
                          "Idempotency-Key");
  }
  const auto seen =
      parts.idempotency.find(key, request.method + " " + request.path + "\n" + request.body);
  if (seen.seen == Idempotency::Seen::same) {
    return seen.response;
  }
  if (seen.seen == Idempotency::Seen::conflict) {
    return error_response(409, "idempotency_conflict",
                          "Idempotency-Key was used for another request, or that request is "
                          "still running");
  }
  HttpResponse response = run();
  if (response.status >= 500) {
    parts.idempotency.forget(key);
  } else {
    parts.idempotency.remember(key, response);
  }
  return response;
}

void add_session_routes(HttpServer& server, ServerParts& parts) {
  server.route("GET", "/api/v1/health", [](const HttpRequest&) {
    return json_response(200, {{"ok", true}});
  });
  server.route("GET", "/api/v1/version", [&parts](const HttpRequest&) {
    return json_response(200, {{"version", RALPH_VERSION},
                               {"api", 1},
                               {"store", parts.postgres ? "postgresql" : "sqlite"},
                               {"read_only", parts.request.read_only}});
  });
  server.route("GET", "/api/v1/config", [&parts](const HttpRequest&) {
    nlohmann::json config = nlohmann::json::parse(
        parts.runtime.redactor().redact_json(config_to_json(parts.request.config)), nullptr, false);
    return json_response(200, config);
  });
  server.route("GET", "/api/v1/sessions",
               [&parts](const HttpRequest& request) { return list_sessions(parts, request); });
  server.route("POST", "/api/v1/sessions", [&parts](const HttpRequest& request) {
    return idempotent(parts, request, [&] { return start_session(parts, request); });
  });
  server.route("GET", route("/api/v1/sessions/{id}"),
               [&parts](const HttpRequest& request) { return show_session(parts, request); });
  server.route("GET", route("/api/v1/sessions/{id}/tool-calls/([0-9]+)/([0-9]+)"),
               [&parts](const HttpRequest& request) { return show_tool_call(parts, request); });
  server.route(
      "GET", route("/api/v1/sessions/{id}/verdicts/([0-9]+)/([0-9]+)/output"),
      [&parts](const HttpRequest& request) { return show_verdict_output(parts, request); });
  server.route("GET", route("/api/v1/sessions/{id}/events"),
               [&parts](const HttpRequest& request) { return show_events(parts, request, false); });
  server.route("GET", route("/api/v1/sessions/{id}/events.ndjson"),
               [&parts](const HttpRequest& request) { return show_events(parts, request, true); });
  server.route("GET", route("/api/v1/sessions/{id}/diff"),
               [&parts](const HttpRequest& request) { return show_diff(parts, request); });
  server.route("POST", route("/api/v1/sessions/{id}/(stop|resume|rerun|verify)"),
               [&parts](const HttpRequest& request) {
                 return idempotent(parts, request, [&] { return act(parts, request); });
               });
}

} // namespace ralph::server
