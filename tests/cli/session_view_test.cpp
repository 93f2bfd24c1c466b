#include "cli/session_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ralph::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

store::SessionRow row(Status status, std::int64_t owner) {
  store::SessionRow r;
  r.id = "20261123-101500-3f9a2c1b7d04";
  r.goal = "make add.sh add";
  r.status = status;
  r.owner_pid = owner;
  r.updated_at = "2026-11-23T10:15:00.000Z";
  return r;
}

// Owners the test says are alive; every other pid is gone.
OwnerCheck alive(std::int64_t pid) {
  return [pid](const store::SessionRow& asked) { return asked.owner_pid == pid; };
}

TEST(ShownStatus, AnActiveSessionWhoseProcessIsGoneIsStopped) {
  EXPECT_EQ(shown_status(row(Status::active, 41), alive(41)), "active");
  EXPECT_EQ(shown_status(row(Status::active, 41), alive(7)), "stopped");
  EXPECT_EQ(shown_status(row(Status::active, 0), alive(0)), "stopped") << "no owner at all";
  EXPECT_EQ(shown_status(row(Status::completed, 0), alive(7)), "completed");
  EXPECT_EQ(shown_status(row(Status::budget_exhausted, 41), alive(7)), "budget_exhausted");
}

TEST(ShownStatus, ListShowAndTheirJsonAgree) {
  const auto gone = alive(7);
  const std::vector<store::SessionRow> rows{row(Status::active, 41)};
  const auto now = std::chrono::system_clock::now();
  EXPECT_THAT(render_session_list(rows, now, gone), HasSubstr(" stopped "));
  EXPECT_THAT(render_session_list(rows, now, alive(41)), Not(HasSubstr("stopped")));
  EXPECT_EQ(nlohmann::json::parse(session_list_json(rows, gone))[0]["status"], "stopped");

  store::SessionRecord record;
  record.session = rows[0];
  EXPECT_THAT(render_session(record, gone),
              HasSubstr("· stopped · its process ended before the session did"));
  EXPECT_EQ(nlohmann::json::parse(session_record_json(record, gone))["status"], "stopped");
  EXPECT_EQ(nlohmann::json::parse(session_record_json(record, alive(41)))["status"], "active");
}

TEST(SessionKindView, ListMarksOtherKindsAndShowNamesKindAndParent) {
  const auto now = std::chrono::system_clock::now();
  store::SessionRow plain = row(Status::completed, 0);
  store::SessionRow tick = row(Status::completed, 0);
  tick.kind = store::SessionKind::heartbeat;
  const std::string list = render_session_list({plain, tick}, now, alive(0));
  EXPECT_THAT(list, HasSubstr("[heartbeat] make add.sh add"));
  EXPECT_THAT(list, Not(HasSubstr("[run]")));

  store::SessionRecord record;
  record.session = plain;
  EXPECT_THAT(render_session(record, alive(0)), Not(HasSubstr("kind:")));
  record.session.kind = store::SessionKind::goal;
  record.session.parent_id = "20261123-100000-aaaaaaaaaaaa";
  EXPECT_THAT(render_session(record, alive(0)),
              HasSubstr("kind:      goal of chat 20261123-100000-aaaaaaaaaaaa\n"));
  const auto shown = nlohmann::json::parse(session_record_json(record, alive(0)));
  EXPECT_EQ(shown["kind"], "goal");
  EXPECT_EQ(shown["parent_id"], "20261123-100000-aaaaaaaaaaaa");
  const auto listed = nlohmann::json::parse(session_list_json({tick}, alive(0)));
  EXPECT_EQ(listed[0]["kind"], "heartbeat");
}

TEST(SessionKindView, AChatThatWasLeftEndedRatherThanCompletedUnverified) {
  store::SessionRow chat = row(Status::completed, 0);
  chat.kind = store::SessionKind::chat;
  const auto now = std::chrono::system_clock::now();
  EXPECT_THAT(render_session_list({chat}, now, alive(0)), HasSubstr(" ended "));
  EXPECT_THAT(render_session_list({chat}, now, alive(0)), Not(HasSubstr("unverified")));
  EXPECT_EQ(nlohmann::json::parse(session_list_json({chat}, alive(0)))[0]["status"], "completed");
}

} // namespace
} // namespace ralph::cli
