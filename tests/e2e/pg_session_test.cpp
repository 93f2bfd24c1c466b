// Sessions in PostgreSQL end to end: `--store URL` (and RALPH_STORE_URL) puts a run's record on
// the test server, every `sessions` command works against it, `sessions copy` moves records
// between SQLite and PostgreSQL, and a URL's password is never shown nor stored.
#include "e2e_support.h"
#include "fake_provider/fake_provider_server.h"
#include "ralph_process.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"

#include "ralph/store/pg_session_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace ralph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* k_password = "pg-Pa55word-never-shown";

// The server's URL with a password in it (the test server trusts loopback and ignores it).
std::string with_password(const std::string& url) {
  const auto at = url.find('@');
  return url.substr(0, at) + ":" + k_password + url.substr(at);
}

// Every file under `dir`, by relative path, with its bytes; but session-index.json, whose
// `updated_at` is when the export wrote it.
std::map<std::string, std::string> files_under(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().filename() != "session-index.json") {
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream bytes;
      bytes << in.rdbuf();
      files[fs::relative(entry.path(), dir).string()] = bytes.str();
    }
  }
  return files;
}

class PgSessionEndToEnd : public ::testing::Test {
protected:
  void SetUp() override {
    PgCluster& cluster = PgCluster::shared();
    RALPH_REQUIRE_PG(cluster);
    url = with_password(cluster.fresh_database());
    workspace.write("test.sh", k_test_script);
  }

  std::vector<std::string> run_args(std::vector<std::string> extra) const {
    std::vector<std::string> all{
        "run",        "make add.sh add",         "--model",     "openai-compat/agent-model",
        "--base-url", agent->base_url() + "/v1", "--workspace", workspace.path().string(),
        "--json"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  RalphOutput ralph(std::vector<std::string> args,
                    const std::map<std::string, std::string>& env = {}) const {
    return run_ralph(std::move(args), workspace.path(), env);
  }
  // `ralph sessions export ID` from `store` into a new folder: its files.
  std::map<std::string, std::string> exported(const std::string& id, const std::string& store) {
    TempDir& out = *exports.emplace_back(std::make_unique<TempDir>());
    const auto written =
        ralph({"sessions", "export", id, "--out", out.path().string(), "--store", store});
    EXPECT_EQ(written.exit_code, 0) << written.err;
    EXPECT_THAT(written.out, HasSubstr("wrote 2 trace file(s)"));
    return files_under(out.path());
  }
  std::string two_attempt_run(std::vector<std::string> extra) {
    agent->push(write_add(k_broken_add));
    agent->push(text_turn("Done."));
    agent->push(write_add(k_fixed_add));
    agent->push(text_turn("Fixed."));
    extra.insert(extra.begin(), {"--verify-cmd", "sh test.sh"});
    const auto out = ralph(run_args(extra));
    EXPECT_EQ(out.exit_code, 0) << out.err;
    EXPECT_THAT(out.out + out.err, Not(HasSubstr(k_password)));
    return json::parse(out.out)["session_id"];
  }

  std::unique_ptr<FakeProviderServer> agent = std::make_unique<FakeProviderServer>();
  TempDir workspace;
  std::string url;
  std::vector<std::unique_ptr<TempDir>> exports;
};

TEST_F(PgSessionEndToEnd, RunListShowExportAndRemoveAgainstPostgres) {
  const std::string id = two_attempt_run({"--store", url});
  EXPECT_FALSE(fs::exists(workspace.path() / ".ralph" / "ralph.db")) << "the record went to PG";

  const auto list = ralph({"sessions", "list", "--store", url});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr(id));
  EXPECT_THAT(list.out, HasSubstr("completed"));

  const auto shown = ralph({"sessions", "show", id, "--json", "--store", url});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, Not(HasSubstr(k_password)));
  const auto record = json::parse(shown.out);
  EXPECT_EQ(record["status"], "completed");
  ASSERT_EQ(record["attempts"].size(), 2u);
  EXPECT_EQ(record["attempts"][0]["verdicts"][0]["result"], "fail");
  EXPECT_EQ(record["attempts"][1]["verdicts"][0]["result"], "pass");
  EXPECT_EQ(record["attempts"][0]["tool_calls"][0]["name"], "write_file");
  EXPECT_THAT(record["config"]["store.url"].get<std::string>(), HasSubstr("ralph:***@127.0.0.1"));

  const auto files = exported(id, url);
  EXPECT_EQ(files.count("sessions/" + id + "/iter-02.json"), 1u);

  const auto removed = ralph({"sessions", "rm", id, "--store", url});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(ralph({"sessions", "show", id, "--store", url}).exit_code, 2);
}

TEST_F(PgSessionEndToEnd, TheEnvironmentNamesTheStoreAndTheFlagWinsOverIt) {
  const std::string id = two_attempt_run({}); // in the workspace's SQLite file
  agent->push(text_turn("Done."));
  const auto in_pg = ralph(run_args({}), {{"RALPH_STORE_URL", url}});
  ASSERT_EQ(in_pg.exit_code, 0) << in_pg.err;
  const std::string pg_id = json::parse(in_pg.out)["session_id"];

  const auto listed = ralph({"sessions", "list", "--json"}, {{"RALPH_STORE_URL", url}});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  ASSERT_EQ(json::parse(listed.out).size(), 1u);
  EXPECT_EQ(json::parse(listed.out)[0]["id"], pg_id);
  // --store over the variable: the workspace's file.
  const auto file = ralph({"sessions", "list", "--json", "--store", ".ralph/ralph.db"},
                          {{"RALPH_STORE_URL", url}});
  ASSERT_EQ(file.exit_code, 0) << file.err;
  ASSERT_EQ(json::parse(file.out).size(), 1u);
  EXPECT_EQ(json::parse(file.out)[0]["id"], id);
}

TEST_F(PgSessionEndToEnd, AKilledRunInPostgresResumesToCompleted) {
  FakeTurn stalled = text_turn("never sent");
  stalled.fault = Fault::slow_first_byte;
  stalled.first_byte_delay = std::chrono::seconds(600);
  agent->push(stalled);
  {
    RalphProcess process(run_args({"--store", url}), workspace.path());
    ASSERT_TRUE(eventually([&] { return agent->requests().size() == 1; }));
    process.signal(SIGKILL);
    EXPECT_EQ(process.wait().exit_code, 128 + SIGKILL);
  }
  const auto listed = ralph({"sessions", "list", "--json", "--store", url});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  ASSERT_EQ(json::parse(listed.out).size(), 1u);
  const std::string id = json::parse(listed.out)[0]["id"];
  EXPECT_EQ(json::parse(listed.out)[0]["status"], "stopped");

  agent->push(text_turn("Done."));
  const auto out = ralph({"sessions", "resume", id, "--yes", "--json", "--store", url});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(json::parse(out.out)["status"], "completed");
  const auto shown = ralph({"sessions", "show", id, "--json", "--store", url});
  EXPECT_EQ(json::parse(shown.out)["status"], "completed");
}

TEST_F(PgSessionEndToEnd, CopyMovesSessionsBothWaysWithTheSameExport) {
  const std::string id = two_attempt_run({}); // SQLite, the default
  const std::string file = (workspace.path() / ".ralph" / "ralph.db").string();
  const auto before = exported(id, file);

  const auto copied = ralph({"sessions", "copy", "--to", url});
  ASSERT_EQ(copied.exit_code, 0) << copied.err;
  EXPECT_THAT(copied.out, HasSubstr("copied 1 session(s) to postgresql://ralph:***@"));
  EXPECT_THAT(copied.out + copied.err, Not(HasSubstr(k_password)));
  EXPECT_TRUE(exported(id, url) == before) << "the export from PostgreSQL differs";

  const auto again = ralph({"sessions", "copy", "--to", url, id.substr(0, 20)});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("copied 0 session(s)"));
  EXPECT_THAT(again.out, HasSubstr("skipped 1 already there"));
  EXPECT_THAT(again.err, HasSubstr("skipped session " + id + ": already in"));
  const auto replaced = ralph({"sessions", "copy", "--to", url, "--replace"});
  EXPECT_THAT(replaced.out, HasSubstr("copied 1 session(s)"));
  EXPECT_TRUE(exported(id, url) == before) << "the export after --replace differs";

  // And back, from PostgreSQL to a new SQLite file.
  const auto back = ralph({"sessions", "copy", "--to", "elsewhere.db", "--store", url});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_THAT(back.out, HasSubstr("copied 1 session(s)"));
  EXPECT_TRUE(exported(id, (workspace.path() / "elsewhere.db").string()) == before)
      << "the export from the SQLite copy differs";
  // iter-01, iter-02, their copies under sessions/, session.json and the (empty) .lock.
  EXPECT_EQ(before.size(), 6u);
}

TEST_F(PgSessionEndToEnd, ASessionRunningOnAnotherHostIsNotJudgedByALocalPid) {
  const std::string id = two_attempt_run({"--store", url});
  {
    // As another machine's run writes it: active, its process there.
    auto store = store::PgSessionStore::open(url, std::chrono::seconds(5));
    ASSERT_TRUE(store) << store.error().message;
    auto row = (*store)->find_session(id);
    ASSERT_TRUE(row && *row);
    store::SessionRow running = **row;
    running.status = Status::active;
    running.owner_pid = 999'999'999; // no such process here
    running.owner_host = "build-7.example";
    ASSERT_TRUE((*store)->update_session(running));
  }
  const auto listed = ralph({"sessions", "list", "--json", "--store", url});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out)[0]["status"], "active") << "not `stopped`: it runs there";
  const auto resumed = ralph({"sessions", "resume", id, "--yes", "--store", url});
  EXPECT_EQ(resumed.exit_code, 2);
  EXPECT_THAT(resumed.err,
              HasSubstr("is running in process 999999999 on host build-7.example; stop it first"));
  const auto removed = ralph({"sessions", "rm", id, "--store", url});
  EXPECT_EQ(removed.exit_code, 2);
  EXPECT_THAT(removed.err, HasSubstr("on host build-7.example"));
}

TEST_F(PgSessionEndToEnd, AnUnreachableServerIsAnErrorWithoutItsPassword) {
  const std::string dead = std::string("postgresql://ralph:") + k_password + "@127.0.0.1:1/ralph";
  const auto out =
      ralph({"sessions", "list", "--store", dead}, {{"RALPH_STORE_RETRY_SECONDS", "0"}});
  EXPECT_NE(out.exit_code, 0);
  EXPECT_THAT(out.err, HasSubstr("postgresql://ralph:***@127.0.0.1:1/ralph: connect:"));
  EXPECT_THAT(out.out + out.err, Not(HasSubstr(k_password)));
  agent->push(text_turn("Done."));
  const auto run = ralph(run_args({"--store", dead}), {{"RALPH_STORE_RETRY_SECONDS", "0"}});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.err, HasSubstr("postgresql://ralph:***@127.0.0.1:1/ralph"));
  EXPECT_THAT(run.out + run.err, Not(HasSubstr(k_password)));
}

} // namespace
} // namespace ralph::testing
