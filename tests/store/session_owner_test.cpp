#include "support/named_process.h"

#include "ralph/core/host_name.h"
#include "ralph/store/session_owner.h"

#include <gtest/gtest.h>

#include <unistd.h>

namespace ralph::store {
namespace {

SessionRow owned_by(std::int64_t pid, std::string host = host_name()) {
  SessionRow row;
  row.id = "s";
  row.owner_pid = pid;
  row.owner_host = std::move(host);
  return row;
}

// The one answer every command uses (list, resume, rm, prune, chat --resume): before it, a pid
// reused by another program looked stopped to `sessions list` and running to `prune`.
TEST(SessionOwner, ALiveRalphOwnsItsSessionAndAPidReusedByAnotherProgramDoesNot) {
  const testing::NamedProcess ralph("ralph");
  const testing::NamedProcess other("sleep");
  EXPECT_TRUE(session_owned(owned_by(ralph.pid())));
  EXPECT_TRUE(owner_alive(ralph.pid(), "")) << "an unknown host is this one";
  EXPECT_FALSE(session_owned(owned_by(other.pid()))) << "alive, but not a ralph";
  EXPECT_FALSE(session_owned(owned_by(testing::dead_pid())));
}

TEST(SessionOwner, ThisProcessNoneAndImpossiblePidsOwnNothing) {
  EXPECT_FALSE(session_owned(owned_by(getpid())));
  EXPECT_FALSE(session_owned(owned_by(0)));
  EXPECT_FALSE(session_owned(owned_by(-5)));
  EXPECT_FALSE(session_owned(owned_by(std::int64_t{1} << 40)));
}

TEST(SessionOwner, AProcessOfAnotherMachineCannotBeCheckedAndCountsAsRunning) {
  const SessionRow row = owned_by(testing::dead_pid(), "another-machine");
  EXPECT_TRUE(session_owned(row));
  EXPECT_TRUE(owned_on_another_host(row));
  EXPECT_EQ(owner_text(row),
            "process " + std::to_string(row.owner_pid) + " on host another-machine");
  EXPECT_FALSE(owned_on_another_host(owned_by(42)));
  EXPECT_EQ(owner_text(owned_by(42, "")), "process 42");
}

} // namespace
} // namespace ralph::store
