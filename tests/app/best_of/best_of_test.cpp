// Best of N as a library call: real sessions on a scripted model, real verify commands, real git.
#include "app/best_of/best_of_fixture.h"
#include "notify/webhook_receiver.h"

#include "ralph/core/time.h"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

namespace ralph::app {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace fs = std::filesystem;

using RunBestOf = BestOfFixture;

TEST_F(RunBestOf, TheRunIsNotifiedOnceNotEachOfItsAttempts) {
  make_repo();
  testing::WebhookReceiver receiver;
  BestOfRequest given = request(2);
  given.session.config.notify = {
      NotifyTarget{.url = receiver.url("/b"),
                   .events = {NotifyEvent::completed, NotifyEvent::budget_exhausted}}};
  const auto report = run(given);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(runtime.drain_notifications(), 0);
  const auto got = receiver.received();
  ASSERT_EQ(got.size(), 1U);
  const auto body = nlohmann::json::parse(got[0].body);
  EXPECT_EQ(body["event"], "completed");
  EXPECT_EQ(body["session"], report->session_id);
  EXPECT_EQ(body["reason"], "attempt 2 won: only one passed");
  EXPECT_EQ(body["attempts"], 2);
  EXPECT_EQ(body["verified"], true);
}

TEST_F(RunBestOf, InGitTheOnlyPassingAttemptIsAppliedAsOneCommitAndEveryDiffIsKept) {
  make_repo();
  const std::string base = git("rev-parse HEAD");
  BestOfRequest given = request(2);
  given.session.outputs = {.events_file = dir.write("events.ndjson", "an earlier line\n"),
                           .trace_dir = dir.path() / "traces"};

  const auto report = run(given);

  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->ran);
  EXPECT_EQ(report->winner, 2);
  EXPECT_EQ(report->why, "only one passed");
  EXPECT_EQ(report->status, Status::completed);
  EXPECT_EQ(report->answer, "Done.");
  ASSERT_TRUE(report->applied) << report->apply_error;
  EXPECT_EQ(slurp(source / "answer.txt"), "fixed\n");
  EXPECT_EQ(report->commit, git("rev-parse HEAD"));
  EXPECT_EQ(git("rev-parse HEAD~1"), base) << "one commit on top of where the user was";
  EXPECT_EQ(git("branch --show-current"), "main");
  EXPECT_THAT(git("log -1 --format=%B"), StartsWith("Make answer.txt say fixed."));
  EXPECT_THAT(git("log -1 --format=%B"),
              HasSubstr("best of 2 attempts (session " + report->session_id + "): attempt 2"));

  const fs::path attempts_dir = source / ".ralph" / "attempts" / report->session_id;
  EXPECT_EQ(report->attempts_dir, attempts_dir.string());
  ASSERT_EQ(report->candidates.size(), 2u);
  for (const CandidateReport& candidate : report->candidates) {
    const std::string k = std::to_string(candidate.index);
    EXPECT_EQ(candidate.branch, "ralph/attempts/" + report->session_id + "/" + k);
    EXPECT_EQ(git("rev-parse --verify --quiet " + candidate.branch + " >/dev/null && echo yes"),
              "yes");
    EXPECT_EQ(candidate.diff, (attempts_dir / (k + ".diff")).string());
    EXPECT_EQ(candidate.changed_lines, 2);
  }
  EXPECT_THAT(slurp(report->candidates[0].diff), HasSubstr("+wrong"));
  EXPECT_THAT(slurp(report->candidates[1].diff), HasSubstr("+fixed"));
  EXPECT_EQ(report->candidates[0].status, Status::budget_exhausted);
  EXPECT_TRUE(report->candidates[1].verified);

  // The observer heard where the attempts are, and each attempt's events under its number.
  ASSERT_EQ(observer.starts.size(), 1u);
  EXPECT_EQ(observer.starts[0].attempts_dir, attempts_dir);
  EXPECT_EQ(observer.starts[0].attempts, 2);
  EXPECT_EQ(observer.attempts_seen(), (std::set<int>{1, 2}));
  EXPECT_EQ(observer.events_of(2).front(), "attempt_started");
  EXPECT_EQ(observer.events_of(2).back(), "status");

  // One events file for both attempts (replaced first), a trace folder each.
  const std::string lines = slurp(dir.path() / "events.ndjson");
  EXPECT_THAT(lines, ::testing::Not(HasSubstr("an earlier line")));
  for (const CandidateReport& candidate : report->candidates) {
    EXPECT_THAT(lines, HasSubstr("\"session\":\"" + candidate.session_id + "\""));
    EXPECT_TRUE(fs::exists(dir.path() / "traces" / std::to_string(candidate.index)));
  }

  // The best-of-N session, its times from the given clock, and its attempts under it.
  auto sessions = store();
  const auto parent = sessions->find_session(report->session_id);
  ASSERT_TRUE(parent && *parent);
  EXPECT_EQ((*parent)->kind, store::SessionKind::best_of);
  EXPECT_EQ((*parent)->status, Status::completed);
  EXPECT_EQ((*parent)->reason, "attempt 2 won: only one passed");
  EXPECT_EQ((*parent)->iterations, 2);
  EXPECT_EQ((*parent)->created_at, iso8601_utc(clock.wall_now()));
  EXPECT_EQ((*parent)->updated_at, iso8601_utc(clock.wall_now()));
  for (const CandidateReport& candidate : report->candidates) {
    const auto child = sessions->find_session(candidate.session_id);
    ASSERT_TRUE(child && *child);
    EXPECT_EQ((*child)->kind, store::SessionKind::run);
    EXPECT_EQ((*child)->parent_id, report->session_id);
    EXPECT_EQ((*child)->workspace, candidate.workspace);
  }
}

TEST_F(RunBestOf, OutsideGitTheWinnersFilesAreCopiedOver) {
  write("obsolete.txt", "stays: no attempt removed it\n");

  const auto report = run(request(2));

  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->winner, 2);
  ASSERT_TRUE(report->applied) << report->apply_error;
  EXPECT_EQ(report->commit, "");
  EXPECT_EQ(slurp(source / "answer.txt"), "fixed\n");
  EXPECT_EQ(slurp(source / "obsolete.txt"), "stays: no attempt removed it\n");
  for (const CandidateReport& candidate : report->candidates) {
    EXPECT_EQ(candidate.branch, "");
    EXPECT_TRUE(fs::exists(candidate.diff));
  }
  EXPECT_THAT(slurp(report->candidates[0].diff), HasSubstr("+wrong"));
}

TEST_F(RunBestOf, WhenNonePassesNothingIsAppliedAndTheBestOnesStatusIsReturned) {
  make_repo();
  const std::string head = git("rev-parse HEAD");

  const auto report = run(request(2, "grep -qx never answer.txt"));

  ASSERT_TRUE(report) << report.error().message;
  EXPECT_FALSE(report->winner);
  EXPECT_FALSE(report->applied);
  EXPECT_EQ(report->status, Status::budget_exhausted);
  EXPECT_THAT(report->why, StartsWith("none passed; ranked first by "));
  EXPECT_EQ(report->order.front(), report->best);
  EXPECT_EQ(git("rev-parse HEAD"), head);
  EXPECT_EQ(slurp(source / "answer.txt"), "unset\n");
  const auto parent = store()->find_session(report->session_id);
  ASSERT_TRUE(parent && *parent);
  EXPECT_EQ((*parent)->status, Status::budget_exhausted);
  EXPECT_FALSE((*parent)->verified);
}

TEST_F(RunBestOf, AConfigurationMistakeIsAnErrorBeforeAnyWorktreeIsMade) {
  make_repo();
  BestOfRequest given = request(2);
  given.session.config.agent.cli = "clippy";

  const auto report = run(given);

  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().kind, ErrorKind::config);
  EXPECT_THAT(report.error().message, HasSubstr("unknown agent 'clippy'"));
  EXPECT_TRUE(observer.starts.empty());
  EXPECT_FALSE(fs::exists(source / ".ralph" / "attempts"));
  EXPECT_EQ(git("branch --list 'ralph/*'"), "");
  EXPECT_EQ(git("worktree list --porcelain").find("attempts"), std::string::npos);
}

TEST_F(RunBestOf, ARequestThatCannotRunIsAUsageError) {
  const auto none = run(request(0));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, ErrorKind::usage);

  BestOfRequest resumed = request(2);
  resumed.session.resume = store::SessionRecord{};
  const auto resuming = run(resumed);
  ASSERT_FALSE(resuming);
  EXPECT_EQ(resuming.error().kind, ErrorKind::usage);
  EXPECT_FALSE(fs::exists(source / ".ralph" / "attempts"));
}

} // namespace
} // namespace ralph::app
