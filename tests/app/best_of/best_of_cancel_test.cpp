// Best of N cancelled, as Ctrl-C does it: while the attempts run, and while their workspaces are
// made. The observer cancels from inside its calls, so each moment is hit exactly.
#include "app/best_of/best_of_fixture.h"

#include <gmock/gmock.h>

namespace ralph::app {
namespace {

namespace fs = std::filesystem;

using RunBestOfCancelled = BestOfFixture;

TEST_F(RunBestOfCancelled, WhileTheAttemptsRunEveryOneStopsAndNothingIsApplied) {
  make_repo();
  const std::string head = git("rev-parse HEAD");
  observer.on_attempt_event = [this] { cancel.cancel(); };

  const auto report = run(request(2));

  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->ran);
  EXPECT_EQ(report->status, Status::interrupted);
  EXPECT_EQ(report->why, "interrupted; nothing applied");
  EXPECT_FALSE(report->winner);
  EXPECT_FALSE(report->applied);
  for (const CandidateReport& candidate : report->candidates) {
    EXPECT_EQ(candidate.status, Status::interrupted) << candidate.index;
    EXPECT_TRUE(fs::exists(candidate.diff)) << "its work is kept all the same";
  }
  EXPECT_EQ(git("rev-parse HEAD"), head);
  EXPECT_EQ(slurp(source / "answer.txt"), "unset\n");
  const auto parent = store()->find_session(report->session_id);
  ASSERT_TRUE(parent && *parent);
  EXPECT_EQ((*parent)->status, Status::interrupted);
}

TEST_F(RunBestOfCancelled, WhileTheWorkspacesAreMadeNothingRunsAndTheObserverIsTold) {
  make_repo();
  observer.on_started = [this] { cancel.cancel(); };

  const auto report = run(request(2));

  ASSERT_TRUE(report) << report.error().message;
  EXPECT_FALSE(report->ran);
  EXPECT_EQ(report->status, Status::interrupted);
  const fs::path attempts_dir = source / ".ralph" / "attempts" / report->session_id;
  EXPECT_EQ(report->attempts_dir, attempts_dir.string());
  EXPECT_EQ(observer.interrupted_in, (std::vector<fs::path>{attempts_dir}));
  EXPECT_TRUE(observer.attempts_seen().empty()) << "no attempt ran";
  EXPECT_EQ(git("branch --list 'ralph/*'"), "");
  const auto parent = store()->find_session(report->session_id);
  ASSERT_TRUE(parent);
  EXPECT_FALSE(*parent) << "nothing recorded";
}

} // namespace
} // namespace ralph::app
