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

// The random players draw every order from the legal ones, so each chit they
// play shows that the list offers it: each is played in three games, but the
// bridge repair, which waits for the Jozefow bridge to be blown first.
TEST(Playout, Rule20_RandomPlayersPlayEveryEventChit) {
  const Engine engine(default_scenario());
  PlayoutStats stats;
  PlayoutOptions opt;
  opt.view_check_every = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) play_one(engine, seed, opt, stats);
  EXPECT_EQ(stats.invariant_violations, 0);
  for (const auto& chit : engine.scenario().events) {
    if (chit.effect == data::BRIDGE_REPAIR) continue;
    EXPECT_GT(stats.chits_played[chit.id], 0) << chit.id << " (" << data::EventEffect_Name(chit.effect) << ")";
  }
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
