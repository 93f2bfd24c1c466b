#include "app/best_of/candidate_ranking.h"

#include <gtest/gtest.h>

namespace ralph::app {
namespace {

CandidateScore passing(int index, int changed, std::optional<double> cost = std::nullopt,
                       std::int64_t tokens = 100) {
  return {.index = index,
          .passed = true,
          .passing_verdicts = 1,
          .changed_lines = changed,
          .cost_usd = cost,
          .tokens = tokens};
}

CandidateScore failing(int index, int passing_verdicts, int changed,
                       std::optional<int> tests_passed = 0) {
  return {.index = index,
          .passing_verdicts = passing_verdicts,
          .tests_passed = tests_passed,
          .changed_lines = changed,
          .tokens = 100};
}

TEST(CandidateRanking, APassingCandidateBeatsEveryOtherHoweverSmallTheirChange) {
  const Ranking ranking = rank_candidates({failing(1, 2, 0), passing(2, 40), failing(3, 0, 1)});
  EXPECT_EQ(ranking.winner, 2);
  EXPECT_EQ(ranking.reason, "only one passed");
  EXPECT_EQ(ranking.order, (std::vector<int>{2, 1, 3}));
}

TEST(CandidateRanking, AmongPassingOnesFewerChangedLinesWinBeforeCost) {
  const Ranking ranking = rank_candidates({passing(1, 40, 0.001), passing(2, 12, 0.5)});
  EXPECT_EQ(ranking.winner, 2);
  EXPECT_EQ(ranking.reason, "fewer changed lines: 12 vs 40");
}

TEST(CandidateRanking, EqualChangesGoToTheLowerCostThenFewerTokensThenTheLowerIndex) {
  EXPECT_EQ(rank_candidates({passing(1, 5, 0.003), passing(2, 5, 0.0012)}).reason,
            "lower cost: $0.0012 vs $0.0030");
  const Ranking tokens =
      rank_candidates({passing(1, 5, std::nullopt, 1500), passing(2, 5, {}, 900)});
  EXPECT_EQ(tokens.winner, 2);
  EXPECT_EQ(tokens.reason, "fewer tokens: 900 vs 1500");
  const Ranking tie = rank_candidates({passing(2, 5, 0.1, 10), passing(1, 5, 0.1, 10)});
  EXPECT_EQ(tie.winner, 1);
  EXPECT_EQ(tie.reason, "a tie on every measure: the lower index");
}

TEST(CandidateRanking, CostsRankOnlyWhenEveryCandidateHasOne) {
  const Ranking ranking =
      rank_candidates({passing(1, 5, 0.5, 900), passing(2, 5, {}, 500), passing(3, 5, 0.1, 700)});
  EXPECT_EQ(ranking.winner, 2);
  EXPECT_EQ(ranking.order, (std::vector<int>{2, 3, 1}));
  EXPECT_EQ(ranking.reason, "fewer tokens: 500 vs 700");
}

TEST(CandidateRanking, WhenNonePassesNothingWinsAndTheClosestIsFirst) {
  const Ranking verdicts = rank_candidates({failing(1, 1, 0), failing(2, 2, 30)});
  EXPECT_FALSE(verdicts.winner);
  EXPECT_EQ(verdicts.order.front(), 2);
  EXPECT_EQ(verdicts.reason, "none passed; ranked first by more passing verdicts: 2 vs 1");
  const Ranking tests = rank_candidates({failing(1, 0, 0, 3), failing(2, 0, 0, 7)});
  EXPECT_EQ(tests.order.front(), 2);
  EXPECT_EQ(tests.reason, "none passed; ranked first by more passing tests: 7 vs 3");
  // go test without -v does not say how many passed: that is not fewer than 3.
  const Ranking unknown = rank_candidates({failing(1, 0, 20, 3), failing(2, 0, 10, std::nullopt)});
  EXPECT_EQ(unknown.order.front(), 2);
  EXPECT_EQ(unknown.reason, "none passed; ranked first by fewer changed lines: 10 vs 20");
}

TEST(CandidateRanking, APassingCandidateWhoseChangesWereNotMeasuredIsNeverApplied) {
  CandidateScore unmeasured = passing(1, 0);
  unmeasured.changed_lines.reset();
  const Ranking alone = rank_candidates({unmeasured, failing(2, 0, 3)});
  EXPECT_FALSE(alone.winner);
  const Ranking other = rank_candidates({unmeasured, passing(2, 90)});
  EXPECT_EQ(other.winner, 2);
  EXPECT_EQ(other.reason, "only one passed");
}

} // namespace
} // namespace ralph::app
