// Random complete games: every order checked against the invariants.
#include <gtest/gtest.h>

#include "playout.h"

namespace counterattack {
namespace {

TEST(Playout, RandomGamesCompleteWithoutInvariantViolations) {
  const Engine engine(default_scenario());
  PlayoutStats stats;
  PlayoutOptions opt;
  opt.view_check_every = 10;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) play_one(engine, seed, opt, stats);
  for (const auto& v : stats.violations) ADD_FAILURE() << v;
  EXPECT_EQ(stats.invariant_violations, 0);
  EXPECT_EQ(stats.completed, 6);
  EXPECT_EQ(stats.soviet_wins + stats.german_wins + stats.draws, 6);
  EXPECT_GT(stats.moves, 0);
}

TEST(Playout, RandomGamesWithEveryOptionalRule) {
  const Engine engine(default_scenario());
  PlayoutStats stats;
  PlayoutOptions opt;
  opt.options = kLimitedGermanActivation | kRedArmyFlexibility | kLimitedBonus | kRedArmyElasticDefense;
  for (std::uint64_t seed = 100; seed < 104; ++seed) play_one(engine, seed, opt, stats);
  for (const auto& v : stats.violations) ADD_FAILURE() << v;
  EXPECT_EQ(stats.invariant_violations, 0);
  EXPECT_EQ(stats.completed, 4);
}

}  // namespace
}  // namespace counterattack
