#include "ralph/store/session_filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace ralph::store {
namespace {

using ::testing::ElementsAre;

SessionRow row(std::string id, SessionKind kind, Status status, bool verified = false) {
  SessionRow out;
  out.id = std::move(id);
  out.kind = kind;
  out.status = status;
  out.verified = verified;
  out.owner_pid = 4242;
  return out;
}

std::vector<std::string> ids(const std::vector<SessionRow>& rows) {
  std::vector<std::string> out;
  for (const SessionRow& r : rows) {
    out.push_back(r.id);
  }
  return out;
}

// Newest first, as list_sessions gives them; "running" is owned by a live process, "killed" is
// recorded active too but its process is gone.
class SessionFilterTest : public ::testing::Test {
protected:
  std::vector<SessionRow> rows{row("running", SessionKind::run, Status::active),
                               row("killed", SessionKind::run, Status::active),
                               row("proved", SessionKind::run, Status::completed, true),
                               row("said", SessionKind::chat, Status::completed),
                               row("beat", SessionKind::heartbeat, Status::failed)};
  OwnerCheck owned = [](const SessionRow& r) { return r.id == "running"; };
};

TEST_F(SessionFilterTest, NoFilterKeepsEverySessionInOrder) {
  EXPECT_THAT(ids(select_sessions(rows, {}, owned)),
              ElementsAre("running", "killed", "proved", "said", "beat"));
}

TEST_F(SessionFilterTest, AStoppedSessionIsStoppedNotActive) {
  EXPECT_THAT(ids(select_sessions(rows, {.stopped = true}, owned)), ElementsAre("killed"));
  EXPECT_THAT(ids(select_sessions(rows, {.statuses = {Status::active}}, owned)),
              ElementsAre("running"));
}

TEST_F(SessionFilterTest, KindsStatusesVerifiedAndLimitCombine) {
  EXPECT_THAT(ids(select_sessions(rows, {.kinds = {SessionKind::run}, .verified = true}, owned)),
              ElementsAre("proved"));
  EXPECT_THAT(ids(select_sessions(rows, {.statuses = {Status::completed, Status::failed}}, owned)),
              ElementsAre("proved", "said", "beat"));
  EXPECT_THAT(
      ids(select_sessions(rows, {.kinds = {SessionKind::chat, SessionKind::heartbeat}}, owned)),
      ElementsAre("said", "beat"));
  EXPECT_THAT(ids(select_sessions(rows, {.limit = 2}, owned)), ElementsAre("running", "killed"));
}

} // namespace
} // namespace ralph::store
