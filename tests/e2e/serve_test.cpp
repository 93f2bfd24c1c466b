// `ralph serve` end to end: the real binary, its API over real HTTP, its live stream, sessions it
// runs against the fake provider server.

#include "../fake_provider/fake_provider_server.h"
#include "../notify/webhook_receiver.h"
#include "../support/pg_cluster.h"
#include "../support/temp_dir.h"
#include "e2e_support.h"
#include "serve_process.h"

#include <gtest/gtest.h>

#include <csignal>

namespace ralph::testing {
namespace {

using nlohmann::json;

class ServeTest : public ::testing::Test {
protected:
  // `ralph serve` whose sessions use the fake provider.
  std::unique_ptr<ServeProcess> start(std::vector<std::string> args = {}) {
    std::vector<std::string> all = {"--model", "openai/gpt-test", "--base-url",
                                    provider.base_url() + "/v1"};
    all.insert(all.end(), args.begin(), args.end());
    auto server = std::make_unique<ServeProcess>(
        workspace.path(), all,
        std::map<std::string, std::string>{{"OPENAI_API_KEY", "sk-test-serve-key-123"}});
    EXPECT_TRUE(server->started());
    return server;
  }

  // The turns of a goal that fails `test -f done.txt` once, then passes.
  void push_retried_goal() {
    provider.push(tool_turn("write_file", {{"path", "notes.txt"}, {"content", "first try\n"}}));
    provider.push(text_turn("I wrote notes.txt."));
    provider.push(tool_turn("write_file", {{"path", "done.txt"}, {"content", "done\n"}}));
    provider.push(text_turn("done.txt is written."));
  }

  // Whether `events` show session `id` ended with `status`.
  static bool ended(const std::vector<SseEvent>& events, const std::string& id,
                    const std::string& status) {
    return std::any_of(events.begin(), events.end(), [&](const SseEvent& e) {
      return e.type == "session" && e.data["session"]["id"] == id &&
             e.data["session"]["status"] == status && !e.data["session"]["running"];
    });
  }

  // Starts a goal on `server` whose model call the test holds; its id once the call came (empty
  // and a test failure when it did not).
  std::string start_held_goal(const ServeProcess& server) {
    auto posted = server.post("/api/v1/sessions", {{"goal", "g"}, {"verify", "test -f done.txt"}});
    EXPECT_EQ(posted->status, 201) << posted->body;
    if (posted->status != 201 || !provider.wait_for_requests(1, std::chrono::seconds(30))) {
      ADD_FAILURE() << "the goal's model call did not come";
      return {};
    }
    return json::parse(posted->body)["id"];
  }

  // Waits for session `id` to end with `status`, through its live stream (from the server's
  // first event: it may have ended before the stream opened).
  void wait_for_end(const ServeProcess& server, const std::string& id,
                    const std::string& status = "completed") {
    const auto events = read_events(
        server, "/api/v1/stream?topics=session:" + id,
        [&](const std::vector<SseEvent>& seen) { return ended(seen, id, status); },
        std::chrono::seconds(60), "0");
    ASSERT_TRUE(ended(events, id, status)) << "session " << id << " did not end " << status;
  }

  FakeProviderServer provider;
  TempDir workspace;
};

TEST_F(ServeTest, TheGateChecksTheCredentialTheHostAndTheOriginOfEachKindOfRoute) {
  auto server = start();
  // Control: the token, the right Host.
  auto ok = server->get("/api/v1/sessions");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);

  auto anonymous = server->client(false)->Get("/api/v1/sessions");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_EQ(server->client(false)->Get("/api/v1/stream?topics=sessions")->status, 401);

  // A name that rebinds to 127.0.0.1 (DNS rebinding): refused even with the token.
  for (const std::string path : {"/api/v1/sessions", "/api/v1/stream?topics=sessions", "/",
                                 "/login?code=x", "/api/v1/health"}) {
    auto rebound =
        server->client()->Get(path, {{"Host", "evil.example:" + std::to_string(server->port())}});
    ASSERT_TRUE(rebound);
    EXPECT_EQ(rebound->status, 403) << path;
    EXPECT_NE(rebound->body.find("forbidden_host"), std::string::npos) << path;
  }
  auto other_site = server->client()->Get("/api/v1/sessions", {{"Origin", "http://evil.example"}});
  EXPECT_EQ(other_site->status, 403);
  EXPECT_NE(other_site->body.find("forbidden_origin"), std::string::npos);
  auto other_port = server->client()->Get("/api/v1/sessions", {{"Origin", "http://127.0.0.1:1"}});
  EXPECT_EQ(other_port->status, 403);
  auto same_site = server->client()->Get(
      "/api/v1/sessions", {{"Origin", "http://127.0.0.1:" + std::to_string(server->port())}});
  EXPECT_EQ(same_site->status, 200);
  // A POST from another site starts nothing.
  auto cross_post =
      server->post("/api/v1/sessions", {{"goal", "x"}}, {{"Origin", "http://evil.example"}});
  EXPECT_EQ(cross_post->status, 403);
  EXPECT_TRUE(server->get_json("/api/v1/sessions")["sessions"].empty());
  EXPECT_EQ(provider.requests().size(), 0U);
}

TEST_F(ServeTest, TheSignInLinkWorksOnceAndSetsAnHttpOnlyCookie) {
  auto server = start();
  const std::string path = server->login_url().substr(server->login_url().find("/login"));
  auto signin = server->client(false)->Get(path);
  ASSERT_TRUE(signin);
  EXPECT_EQ(signin->status, 303);
  EXPECT_EQ(signin->get_header_value("Location"), "/");
  const std::string cookie = signin->get_header_value("Set-Cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos) << cookie;
  const std::string value = cookie.substr(0, cookie.find(';'));

  auto with_cookie = server->client(false)->Get("/api/v1/sessions", {{"Cookie", value}});
  EXPECT_EQ(with_cookie->status, 200);
  auto forged = server->client(false)->Get("/api/v1/sessions",
                                           {{"Cookie", "ralph_session=" + std::string(64, 'a')}});
  EXPECT_EQ(forged->status, 401);
  auto again = server->client(false)->Get(path);
  EXPECT_EQ(again->status, 401) << "a sign-in link works once";
  EXPECT_TRUE(again->get_header_value("Set-Cookie").empty());
  // The token itself signs in (a second browser), and is never part of a page.
  auto by_token = server->client(false)->Get("/login?code=" + server->token());
  EXPECT_EQ(by_token->status, 303);
  auto page = server->client(false)->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->body.find(server->token()), std::string::npos);
}

TEST_F(ServeTest, AGoalStartedThroughTheApiIsRetriedUntilItsVerifierPasses) {
  push_retried_goal();
  auto server = start();
  auto posted = server->post("/api/v1/sessions",
                             {{"goal", "write done.txt"}, {"verify", "test -f done.txt"}});
  ASSERT_TRUE(posted);
  ASSERT_EQ(posted->status, 201) << posted->body;
  const std::string id = json::parse(posted->body)["id"];
  wait_for_end(*server, id);

  const json detail = server->get_json("/api/v1/sessions/" + id);
  EXPECT_EQ(detail["session"]["status"], "completed");
  EXPECT_EQ(detail["session"]["verified"], true);
  EXPECT_EQ(detail["session"]["hosted"], false);
  ASSERT_EQ(detail["attempts"].size(), 2U);
  const json& first = detail["attempts"][0];
  ASSERT_EQ(first["verdicts"].size(), 1U);
  EXPECT_EQ(first["verdicts"][0]["result"], "fail");
  EXPECT_NE(first["feedback"].get<std::string>(), "") << "the feedback sent to attempt 2";
  EXPECT_EQ(detail["attempts"][1]["verdicts"][0]["result"], "pass");
  EXPECT_EQ(detail["budgets"]["attempts"]["used"], 2);
  EXPECT_EQ(detail["budgets"]["attempts"]["limit"], 3);
  EXPECT_EQ(detail.dump().find("sk-test-serve-key-123"), std::string::npos);

  const json tool = server->get_json("/api/v1/sessions/" + id + "/tool-calls/2/1");
  EXPECT_EQ(tool["name"], "write_file");
  EXPECT_FALSE(tool["result"].get<std::string>().empty());
  EXPECT_EQ(server->get("/api/v1/sessions/" + id + "/tool-calls/9/1")->status, 404);
  auto output = server->get("/api/v1/sessions/" + id + "/verdicts/1/1/output");
  EXPECT_EQ(output->status, 200);

  const json events = server->get_json("/api/v1/sessions/" + id + "/events?type=attempt_started");
  EXPECT_EQ(events["events"].size(), 2U);
  auto download = server->get("/api/v1/sessions/" + id + "/events.ndjson");
  EXPECT_EQ(download->status, 200);
  EXPECT_NE(download->get_header_value("Content-Disposition").find("attachment"),
            std::string::npos);
  EXPECT_NE(download->body.find("\"type\":\"verdict\""), std::string::npos);

  // Verified again now, as the workspace is: passes; with the file gone, fails; nothing recorded.
  auto verified = server->post("/api/v1/sessions/" + id + "/verify", json::object());
  ASSERT_EQ(verified->status, 200) << verified->body;
  EXPECT_EQ(json::parse(verified->body)["passed"], true);
  std::filesystem::remove(workspace.path() / "done.txt");
  auto failing = server->post("/api/v1/sessions/" + id + "/verify", json::object());
  EXPECT_EQ(json::parse(failing->body)["passed"], false) << failing->body;
  EXPECT_EQ(json::parse(failing->body)["verdicts"][0]["result"], "fail");
  EXPECT_EQ(server->get_json("/api/v1/sessions/" + id)["attempts"].size(), 2U);

  // Run again: a new session with the same goal and configuration.
  provider.push(tool_turn("write_file", {{"path", "done.txt"}, {"content", "again\n"}}));
  provider.push(text_turn("written again"));
  auto again = server->post("/api/v1/sessions/" + id + "/rerun", json::object());
  ASSERT_EQ(again->status, 201) << again->body;
  const std::string second = json::parse(again->body)["id"];
  EXPECT_NE(second, id);
  wait_for_end(*server, second);
  const json rerun = server->get_json("/api/v1/sessions/" + second);
  EXPECT_EQ(rerun["session"]["goal"], "write done.txt");
  EXPECT_EQ(rerun["session"]["status"], "completed");
  EXPECT_EQ(rerun["attempts"].size(), 1U);

  const json list = server->get_json("/api/v1/sessions?status=completed&q=DONE.TXT");
  ASSERT_EQ(list["sessions"].size(), 2U);
  EXPECT_EQ(list["sessions"][0]["id"], second) << "newest first";
  const json page = server->get_json("/api/v1/sessions?limit=1");
  ASSERT_EQ(page["sessions"].size(), 1U);
  const json next =
      server->get_json("/api/v1/sessions?limit=1&cursor=" + page["next_cursor"].get<std::string>());
  ASSERT_EQ(next["sessions"].size(), 1U);
  EXPECT_EQ(next["sessions"][0]["id"], id);
  EXPECT_TRUE(next["next_cursor"].is_null());
  EXPECT_TRUE(server->get_json("/api/v1/sessions?status=failed")["sessions"].empty());
}

TEST_F(ServeTest, EachAttemptsDiffIsKeptWithoutTouchingTheRepository) {
  const auto sh = [&](const std::string& command) {
    return std::system(("cd '" + workspace.path().string() + "' && " + command).c_str());
  };
  ASSERT_EQ(sh("git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m "
               "base"),
            0);
  const std::string head = workspace.read(".git/HEAD");
  push_retried_goal();
  auto server = start();
  auto posted = server->post("/api/v1/sessions", {{"goal", "g"}, {"verify", "test -f done.txt"}});
  ASSERT_EQ(posted->status, 201) << posted->body;
  const std::string id = json::parse(posted->body)["id"];
  wait_for_end(*server, id);

  auto first = server->get("/api/v1/sessions/" + id + "/diff?attempt=1");
  ASSERT_EQ(first->status, 200) << first->body;
  EXPECT_NE(first->body.find("+++ b/notes.txt"), std::string::npos) << first->body;
  EXPECT_EQ(first->body.find("done.txt"), std::string::npos) << first->body;
  auto second = server->get("/api/v1/sessions/" + id + "/diff?attempt=2");
  EXPECT_NE(second->body.find("+++ b/done.txt"), std::string::npos) << second->body;
  EXPECT_EQ(second->body.find("notes.txt"), std::string::npos) << second->body;
  auto whole = server->get("/api/v1/sessions/" + id + "/diff");
  EXPECT_NE(whole->body.find("notes.txt"), std::string::npos);
  EXPECT_NE(whole->body.find("done.txt"), std::string::npos);
  EXPECT_EQ(whole->body.find(".ralph/"), std::string::npos) << "ralph's own files are not work";
  EXPECT_EQ(server->get("/api/v1/sessions/" + id + "/diff?attempt=7")->status, 404);
  // The repository is as it was: same HEAD, nothing staged, the agent's files untracked.
  EXPECT_EQ(workspace.read(".git/HEAD"), head);
  EXPECT_EQ(sh("git diff --cached --quiet"), 0);
  EXPECT_EQ(sh("git log --oneline | wc -l | grep -qx 1"), 0);
}

TEST_F(ServeTest, ASessionOutsideGitHasNoDiff) {
  push_retried_goal();
  auto server = start();
  auto posted = server->post("/api/v1/sessions", {{"goal", "g"}, {"verify", "test -f done.txt"}});
  const std::string id = json::parse(posted->body)["id"];
  wait_for_end(*server, id);
  EXPECT_EQ(server->get("/api/v1/sessions/" + id + "/diff")->status, 404);
}

TEST_F(ServeTest, AGoalRunByTheServerNotifiesWhenItEnds) {
  WebhookReceiver receiver;
  workspace.write(".ralph/config.toml", "[[notify]]\nurl = \"" + receiver.url("/hook") +
                                            "\"\nevents = [\"completed\"]\n");
  push_retried_goal();
  auto server = start();
  auto posted = server->post("/api/v1/sessions", {{"goal", "g"}, {"verify", "test -f done.txt"}});
  ASSERT_EQ(posted->status, 201) << posted->body;
  const std::string id = json::parse(posted->body)["id"];
  ASSERT_TRUE(receiver.wait_for(1));
  const json body = json::parse(receiver.received()[0].body);
  EXPECT_EQ(body["event"], "completed");
  EXPECT_EQ(body["session"], id);
  EXPECT_EQ(receiver.received()[0].body.find("sk-test-serve-key-123"), std::string::npos);
}

TEST_F(ServeTest, TheConfigurationIsShownWithItsSecretsMasked) {
  auto server = std::make_unique<ServeProcess>(
      workspace.path(),
      std::vector<std::string>{"--model", "openai/gpt-test", "--base-url",
                               provider.base_url() + "/v1", "--verify-cmd",
                               "curl -H 'Authorization: Bearer hush-hush-0123456789' x"},
      std::map<std::string, std::string>{{"OPENAI_API_KEY", "sk-test-serve-key-123"},
                                         {"DEPLOY_TOKEN", "hush-hush-0123456789"}});
  ASSERT_TRUE(server->started());
  auto answer = server->get("/api/v1/config");
  ASSERT_EQ(answer->status, 200);
  const json config = json::parse(answer->body);
  EXPECT_EQ(config["model"], "openai/gpt-test");
  EXPECT_NE(answer->body.find("curl -H"), std::string::npos) << "the command is shown";
  EXPECT_EQ(answer->body.find("hush-hush-0123456789"), std::string::npos) << answer->body;
  EXPECT_EQ(answer->body.find("sk-test-serve-key-123"), std::string::npos);
}

TEST_F(ServeTest, ABatchRunningHereStopsAndIsListed) {
  HeldAnswers held(provider, "held");
  auto server = start();
  auto posted = server->post(
      "/api/v1/batches", {{"goals", {{{"id", "slow"}, {"goal", "wait"}}}}, {"name", "nightly"}});
  ASSERT_EQ(posted->status, 201) << posted->body;
  const std::string batch = json::parse(posted->body)["id"];
  ASSERT_TRUE(provider.wait_for_requests(1, std::chrono::seconds(30)));
  const json listed = server->get_json("/api/v1/batches");
  ASSERT_EQ(listed["batches"].size(), 1U);
  EXPECT_EQ(listed["batches"][0]["id"], batch);
  EXPECT_EQ(listed["batches"][0]["state"], "running");
  EXPECT_EQ(listed["batches"][0]["hosted"], true);
  EXPECT_EQ(server->post("/api/v1/batches/no-such/stop", json::object())->status, 409);
  auto stopped = server->post("/api/v1/batches/" + batch + "/stop", json::object());
  EXPECT_EQ(stopped->status, 202);
  const auto events = read_events(
      *server, "/api/v1/stream?topics=batches",
      [](const std::vector<SseEvent>& seen) {
        return std::any_of(seen.begin(), seen.end(), [](const SseEvent& e) {
          return e.type == "batch_state" && e.data["state"] == "stopped";
        });
      },
      std::chrono::seconds(60), "0");
  EXPECT_FALSE(events.empty());
  const json shown = server->get_json("/api/v1/batches/" + batch);
  EXPECT_EQ(shown["state"], "stopped");
  EXPECT_EQ(shown["goal_list"][0]["state"], "queued") << "an interrupted goal runs again";
  EXPECT_EQ(server->get("/api/v1/batches/no-such")->status, 404);
}

TEST_F(ServeTest, BadRequestsAreRefusedNamingTheFieldAndRecordNothing) {
  auto server = start();
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"goal", "x"}, {"max_iterations", "many"}}, "max_iterations"},
      {{{"goal", "x"}, {"no_such_key", 1}}, "no_such_key"},
      {{{"verify", "true"}}, "goal"},
      {{{"goal", "x"}, {"workspace", "/no/such/folder"}}, "workspace"},
  };
  for (const auto& [body, field] : cases) {
    auto refused = server->post("/api/v1/sessions", body);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 400) << body.dump() << ": " << refused->body;
    const json error = json::parse(refused->body, nullptr, false);
    EXPECT_EQ(error["error"]["field"], field) << refused->body;
  }
  auto not_json = server->client()->Post("/api/v1/sessions", "{goal", "application/json");
  EXPECT_EQ(not_json->status, 400);
  EXPECT_EQ(server->get("/api/v1/sessions?limit=0")->status, 400);
  EXPECT_EQ(server->get("/api/v1/sessions?status=sleeping")->status, 400);
  EXPECT_EQ(server->get("/api/v1/stream?topics=nonsense")->status, 400);
  EXPECT_EQ(server->get("/api/v1/sessions/no-such-session")->status, 404);
  EXPECT_TRUE(server->get_json("/api/v1/sessions")["sessions"].empty());
  EXPECT_EQ(provider.requests().size(), 0U);
}

TEST_F(ServeTest, AReadOnlyServerRefusesEveryPost) {
  auto server = start({"--read-only"});
  push_retried_goal();
  auto refused = server->post("/api/v1/sessions", {{"goal", "x"}});
  EXPECT_EQ(refused->status, 403);
  EXPECT_NE(refused->body.find("read_only"), std::string::npos);
  EXPECT_EQ(server->post("/api/v1/batches", {{"goals", json::array()}})->status, 403);
  EXPECT_TRUE(server->get_json("/api/v1/sessions")["sessions"].empty());
  EXPECT_EQ(server->get_json("/api/v1/version")["read_only"], true);
}

TEST_F(ServeTest, AnIdempotencyKeyStartsOneSession) {
  push_retried_goal();
  auto server = start();
  const json body = {{"goal", "write done.txt"}, {"verify", "test -f done.txt"}};
  auto first = server->post("/api/v1/sessions", body, {{"Idempotency-Key", "k-1"}});
  auto second = server->post("/api/v1/sessions", body, {{"Idempotency-Key", "k-1"}});
  ASSERT_EQ(first->status, 201);
  EXPECT_EQ(second->status, 201);
  EXPECT_EQ(json::parse(first->body)["id"], json::parse(second->body)["id"]);
  auto other =
      server->post("/api/v1/sessions", {{"goal", "another"}}, {{"Idempotency-Key", "k-1"}});
  EXPECT_EQ(other->status, 409);
  wait_for_end(*server, json::parse(first->body)["id"]);
  EXPECT_EQ(server->get_json("/api/v1/sessions")["sessions"].size(), 1U);
}

TEST_F(ServeTest, TheStreamResumesAfterTheLastEventItSaw) {
  push_retried_goal();
  auto server = start();
  auto posted = server->post("/api/v1/sessions", {{"goal", "g"}, {"verify", "test -f done.txt"}});
  ASSERT_EQ(posted->status, 201);
  const std::string id = json::parse(posted->body)["id"];
  const std::string topic = "/api/v1/stream?topics=session:" + id;
  const auto all = read_events(
      *server, topic,
      [&](const std::vector<SseEvent>& seen) { return ended(seen, id, "completed"); },
      std::chrono::seconds(60), "0");
  ASSERT_TRUE(ended(all, id, "completed"));
  ASSERT_GT(all.size(), 6U);
  // A reader that saw the first few comes back and gets exactly what followed, in order (and
  // maybe more: the store's change feed may tell of the session's end once again).
  const std::size_t seen = 3;
  const auto rest = read_events(
      *server, topic,
      [&](const std::vector<SseEvent>& got) { return got.size() >= all.size() - seen; },
      std::chrono::seconds(10), all[seen - 1].id);
  ASSERT_GE(rest.size(), all.size() - seen);
  for (std::size_t i = 0; i < all.size() - seen; ++i) {
    EXPECT_EQ(rest[i].id, all[seen + i].id);
    EXPECT_EQ(rest[i].type, all[seen + i].type);
  }
  // An id the server does not have (another life of it): resync first.
  const auto stale = read_events(
      *server, topic, [](const std::vector<SseEvent>& got) { return !got.empty(); },
      std::chrono::seconds(10), "99999999");
  ASSERT_FALSE(stale.empty());
  EXPECT_EQ(stale[0].type, "resync");
}

TEST_F(ServeTest, StopEndsAHostedSessionInterruptedAndResumeFinishesIt) {
  auto server = start();
  std::string id;
  {
    HeldAnswers held(provider, "held");
    auto posted = server->post("/api/v1/sessions", {{"goal", "g"}, {"verify", "test -f done.txt"}});
    ASSERT_EQ(posted->status, 201) << posted->body;
    id = json::parse(posted->body)["id"];
    ASSERT_TRUE(provider.wait_for_requests(1, std::chrono::seconds(30)));
    EXPECT_EQ(server->get_json("/api/v1/sessions/" + id)["session"]["hosted"], true);
    auto stopped = server->post("/api/v1/sessions/" + id + "/stop", json::object());
    EXPECT_EQ(stopped->status, 202);
    wait_for_end(*server, id, "interrupted");
  }
  EXPECT_EQ(server->get_json("/api/v1/sessions/" + id)["session"]["status"], "interrupted");
  EXPECT_EQ(server->post("/api/v1/sessions/" + id + "/stop", json::object())->status, 409);

  provider.push(tool_turn("write_file", {{"path", "done.txt"}, {"content", "done\n"}}));
  provider.push(text_turn("done"));
  auto resumed = server->post("/api/v1/sessions/" + id + "/resume", json::object());
  ASSERT_EQ(resumed->status, 202) << resumed->body;
  wait_for_end(*server, id);
  const json detail = server->get_json("/api/v1/sessions/" + id);
  EXPECT_EQ(detail["session"]["status"], "completed");
  EXPECT_EQ(detail["session"]["verified"], true);
}

TEST_F(ServeTest, ASessionOfAServerKilledMidRunIsShownStoppedAndResumes) {
  std::string id;
  {
    HeldAnswers held(provider, "held");
    auto server = start();
    id = start_held_goal(*server);
    ASSERT_FALSE(id.empty());
    server->process().signal(SIGKILL);
    server->stop();
  }
  auto server = start();
  const json stopped = server->get_json("/api/v1/sessions?status=stopped");
  ASSERT_EQ(stopped["sessions"].size(), 1U);
  EXPECT_EQ(stopped["sessions"][0]["id"], id);
  EXPECT_EQ(stopped["sessions"][0]["running"], false);

  provider.push(tool_turn("write_file", {{"path", "done.txt"}, {"content", "done\n"}}));
  provider.push(text_turn("done"));
  auto resumed = server->post("/api/v1/sessions/" + id + "/resume", json::object());
  ASSERT_EQ(resumed->status, 202) << resumed->body;
  wait_for_end(*server, id);
  EXPECT_EQ(server->get_json("/api/v1/sessions/" + id)["session"]["status"], "completed");
}

TEST_F(ServeTest, AServerStoppedMidRunEndsItsSessionsInterruptedAndResumable) {
  std::string id;
  {
    HeldAnswers held(provider, "held");
    auto server = start();
    id = start_held_goal(*server);
    ASSERT_FALSE(id.empty());
    const RalphOutput out = server->stop();
    EXPECT_EQ(out.exit_code, 0) << out.err;
  }
  auto server = start();
  const json shown = server->get_json("/api/v1/sessions/" + id);
  EXPECT_EQ(shown["session"]["status"], "interrupted");
  EXPECT_EQ(shown["session"]["running"], false);
  provider.push(tool_turn("write_file", {{"path", "done.txt"}, {"content", "done\n"}}));
  provider.push(text_turn("done"));
  ASSERT_EQ(server->post("/api/v1/sessions/" + id + "/resume", json::object())->status, 202);
  wait_for_end(*server, id);
  EXPECT_EQ(server->get_json("/api/v1/sessions/" + id)["session"]["status"], "completed");
}

TEST_F(ServeTest, ABatchRunsThroughTheApiAndItsFailedGoalsRunAgain) {
  provider.set_responder([](const RecordedRequest& request) -> std::optional<FakeTurn> {
    const bool good = request.body.find("goal-good") != std::string::npos;
    const bool wrote = request.body.find("\"tool_call_id\"") != std::string::npos ||
                       request.body.find("\"role\":\"tool\"") != std::string::npos;
    if (good && !wrote) {
      return tool_turn("write_file", {{"path", "done.txt"}, {"content", "ok\n"}});
    }
    return text_turn("finished");
  });
  auto server = start();
  auto posted = server->post(
      "/api/v1/batches", {{"goals",
                           {{{"id", "good"}, {"goal", "goal-good"}, {"verify", "test -f done.txt"}},
                            {{"id", "bad"},
                             {"goal", "goal-bad"},
                             {"verify", "test -f done.txt"},
                             {"max_iterations", 1}}}},
                          {"concurrency", 2}});
  ASSERT_EQ(posted->status, 201) << posted->body;
  const std::string batch = json::parse(posted->body)["id"];
  const auto events = read_events(
      *server, "/api/v1/stream?topics=batch:" + batch,
      [](const std::vector<SseEvent>& seen) {
        return std::any_of(seen.begin(), seen.end(), [](const SseEvent& e) {
          return e.type == "batch_state" && e.data["state"] != "running";
        });
      },
      std::chrono::seconds(60), "0");
  ASSERT_FALSE(events.empty());
  const json shown = server->get_json("/api/v1/batches/" + batch);
  EXPECT_EQ(shown["done"], 1);
  EXPECT_EQ(shown["failed"], 1);
  EXPECT_EQ(shown["goals"], 2);
  ASSERT_EQ(shown["failing_verifiers"].size(), 1U);
  EXPECT_EQ(shown["failing_verifiers"][0]["goals"], 1);
  const json good_sessions = server->get_json("/api/v1/sessions?batch=" + batch);
  EXPECT_EQ(good_sessions["sessions"].size(), 2U);

  auto again = server->post("/api/v1/batches/" + batch + "/rerun-failed", json::object());
  ASSERT_EQ(again->status, 201) << again->body;
  EXPECT_NE(json::parse(again->body)["id"], batch);
  EXPECT_EQ(server->post("/api/v1/batches", {{"goals", {{{"goal", "no id"}}}}})->status, 400);
  auto bad_budget = server->post(
      "/api/v1/batches", {{"goals", {{{"id", "x"}, {"goal", "x"}}}}, {"cost_budget", "lots"}});
  EXPECT_EQ(bad_budget->status, 400);
  EXPECT_EQ(json::parse(bad_budget->body)["error"]["field"], "cost_budget") << bad_budget->body;
}

TEST_F(ServeTest, ARunOfAnotherProcessReachesTheLiveList) {
  auto server = start();
  push_retried_goal();
  const RalphOutput run =
      run_ralph({"run", "write done.txt", "--model", "openai-compat/m", "--base-url",
                 provider.base_url() + "/v1", "--verify-cmd", "test -f done.txt", "--json", "-q"},
                workspace.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string id = parse_output(run)["session_id"];
  // Told by the store's change feed (inotify on the SQLite file), not by the server's own run.
  const auto events = read_events(
      *server, "/api/v1/stream?topics=sessions",
      [&](const std::vector<SseEvent>& seen) { return ended(seen, id, "completed"); },
      std::chrono::seconds(60), "0");
  EXPECT_TRUE(ended(events, id, "completed"));
  EXPECT_EQ(server->get_json("/api/v1/sessions/" + id)["session"]["hosted"], false);
}

TEST_F(ServeTest, WorkersOnAPostgresStoreAreShownLive) {
  PgCluster& cluster = PgCluster::shared();
  RALPH_REQUIRE_PG(cluster);
  const std::string url = cluster.fresh_database();
  auto server = start({"--store", url});
  EXPECT_EQ(server->get_json("/api/v1/version")["store"], "postgresql");
  workspace.write("goals.jsonl", R"({"id": "one", "goal": "write one.txt"})"
                                 "\n");
  const RalphOutput queued =
      run_ralph({"batch", "goals.jsonl", "--queue", url, "--name", "b", "--model",
                 "openai-compat/agent-model", "--base-url", provider.base_url() + "/v1"},
                workspace.path());
  ASSERT_EQ(queued.exit_code, 0) << queued.err;
  HeldAnswers held(provider, "held");
  RalphProcess worker({"worker", "--queue", url, "--exit-when-empty", "--workdir",
                       (workspace.path() / "w").string()},
                      workspace.path());
  ASSERT_TRUE(provider.wait_for_requests(1, std::chrono::seconds(60)));
  // The worker holding the goal, heard through LISTEN/NOTIFY.
  const auto holding = read_events(
      *server, "/api/v1/stream?topics=workers",
      [](const std::vector<SseEvent>& seen) {
        return std::any_of(seen.begin(), seen.end(), [](const SseEvent& e) {
          return e.type == "workers" && !e.data["workers"].empty() &&
                 !e.data["workers"][0]["goals"].empty();
        });
      },
      std::chrono::seconds(60), "0");
  ASSERT_FALSE(holding.empty());
  const json workers = server->get_json("/api/v1/workers");
  ASSERT_EQ(workers["workers"].size(), 1U);
  EXPECT_EQ(workers["workers"][0]["goals"][0]["id"], "one");
  EXPECT_TRUE(workers["workers"][0]["heartbeat_age_ms"].is_number());
  ASSERT_EQ(workers["queue"].size(), 1U);
  EXPECT_EQ(workers["queue"][0]["running"], 1);

  held.release();
  const RalphOutput done = worker.wait();
  // A fresh server finds a queue batch's sessions from the queue.
  auto fresh = start({"--store", url});
  const json in_batch = fresh->get_json("/api/v1/sessions?batch=b");
  ASSERT_EQ(in_batch["sessions"].size(), 1U);
  EXPECT_EQ(in_batch["sessions"][0]["batch"], "b");
  EXPECT_EQ(done.exit_code, 0) << done.err;
  const json batch = server->get_json("/api/v1/batches/b");
  EXPECT_EQ(batch["source"], "queue");
  EXPECT_EQ(batch["done"], 1);
  ASSERT_EQ(batch["goal_list"].size(), 1U);
  const std::string id = batch["goal_list"][0]["session_id"];
  const auto events = read_events(
      *server, "/api/v1/stream?topics=sessions",
      [&](const std::vector<SseEvent>& seen) { return ended(seen, id, "completed"); },
      std::chrono::seconds(60), "0");
  EXPECT_TRUE(ended(events, id, "completed")) << "the worker's session, as it ended";
}

TEST(ServeCommand, ABindOthersCanReachNeedsAToken) {
  TempDir workspace;
  const RalphOutput out =
      run_ralph({"serve", "--bind", "0.0.0.0", "--port", "0"}, workspace.path());
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("needs a token"), std::string::npos) << out.err;
}

} // namespace
} // namespace ralph::testing
