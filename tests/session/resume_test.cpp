#include "support/named_process.h"
#include "support/temp_dir.h"

#include "ralph/loop/store_journal.h"
#include "ralph/session/resume.h"
#include "ralph/store/sqlite_session_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ralph::session {
namespace {

using ::testing::HasSubstr;

store::SessionRecord recorded(const std::filesystem::path& workspace, Status status,
                              int max_iterations, int attempts) {
  store::SessionRecord record;
  store::SessionRow& row = record.session;
  row.id = "20261127-120000-00000000abcd";
  row.goal = "make it pass";
  row.workspace = workspace.string();
  row.status = status;
  Config config;
  config.loop.max_iterations = max_iterations;
  config.verify.commands = {"make test"};
  row.config_json = config_to_json(config);
  row.iterations = attempts;
  loop::ResumePoint next{.next_iteration = attempts + 1,
                         .conversation = {Message{.role = Role::user, .content = row.goal}}};
  row.resume_json = loop::resume_point_to_json(next);
  for (int i = 1; i <= attempts; ++i) {
    record.attempts.push_back({.session_id = row.id, .iteration = i, .finished = true});
  }
  return record;
}

std::vector<Setting> flags(const std::string& key, const std::string& value) {
  return {*Setting::parse({.key = key, .value = value, .flag = "--flag"})};
}

TEST(ResumePlan, GoesOnWithTheRecordedConfigurationAndTheFlagsOverIt) {
  testing::TempDir dir;
  const auto plan = plan_resume(recorded(dir.path(), Status::interrupted, 3, 1),
                                flags("budget.max_tokens", "20k"));
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->next_iteration, 2);
  EXPECT_EQ(plan->attempts_finished, 1);
  EXPECT_EQ(plan->request.goal, "make it pass");
  EXPECT_EQ(plan->request.config.verify.commands, (std::vector<std::string>{"make test"}));
  EXPECT_EQ(plan->request.config.budget.max_tokens, 20000);
  ASSERT_TRUE(plan->request.resume);
}

TEST(ResumePlan, ASessionABudgetEndedGoesOnOnlyWithABudgetRaised) {
  testing::TempDir dir;
  const auto same = plan_resume(recorded(dir.path(), Status::budget_exhausted, 2, 2), {});
  ASSERT_FALSE(same);
  EXPECT_THAT(same.error().message, HasSubstr("resume it with --max-iterations 3 or more"));
  EXPECT_TRUE(plan_resume(recorded(dir.path(), Status::budget_exhausted, 2, 2),
                          flags("loop.max_iterations", "3")));
}

TEST(ResumePlan, WhatCannotGoOnSaysWhatToDo) {
  testing::TempDir dir;
  auto completed = recorded(dir.path(), Status::completed, 3, 1);
  EXPECT_THAT(plan_resume(completed, {}).error().message, HasSubstr("already completed"));
  auto chat = recorded(dir.path(), Status::active, 3, 1);
  chat.session.kind = store::SessionKind::chat;
  EXPECT_THAT(plan_resume(chat, {}).error().message, HasSubstr("ralph chat --resume"));
  const testing::NamedProcess owner("ralph");
  auto running = recorded(dir.path(), Status::active, 3, 1);
  running.session.owner_pid = owner.pid();
  EXPECT_THAT(plan_resume(running, {}).error().message, HasSubstr("is running in process"));
  auto gone = recorded(dir.path() / "gone", Status::interrupted, 3, 1);
  EXPECT_THAT(plan_resume(gone, {}).error().message, HasSubstr("is gone"));
}

TEST(FindSession, AnIdOrAPrefixThatNamesOnlyOne) {
  testing::TempDir dir;
  auto store = store::SqliteSessionStore::open(dir.path() / "ralph.db");
  ASSERT_TRUE(store);
  for (const char* id : {"20261127-aaaa", "20261127-aabb", "20261127-bb"}) {
    store::SessionRow row;
    row.id = id;
    ASSERT_TRUE((*store)->create_session(row));
  }
  EXPECT_EQ(find_session(**store, "20261127-b")->id, "20261127-bb");
  EXPECT_EQ(find_session(**store, "20261127-aaaa")->id, "20261127-aaaa");
  EXPECT_THAT(find_session(**store, "20261127-aa").error().message, HasSubstr("matches 2"));
  EXPECT_THAT(find_session(**store, "x").error().message, HasSubstr("no session x"));
}

} // namespace
} // namespace ralph::session
