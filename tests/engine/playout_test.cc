// Random complete games: every order checked against the invariants.
#include <gtest/gtest.h>

#include "playout.h"

namespace counterattack {
namespace {

const Engine& engine() {
  static const Engine e(default_scenario());
  return e;
}

// Plays the games of seeds first..last and reports every invariant broken.
PlayoutStats play_games(std::uint64_t first, std::uint64_t last, const PlayoutOptions& opt) {
  PlayoutStats stats;
  for (std::uint64_t seed = first; seed <= last; ++seed) play_one(engine(), seed, opt, stats);
  for (const auto& v : stats.violations) ADD_FAILURE() << v;
  EXPECT_EQ(stats.invariant_violations, 0);
  return stats;
}

TEST(Playout, RandomGamesCompleteWithoutInvariantViolations) {
  PlayoutOptions opt;
  opt.view_check_every = 10;
  const PlayoutStats stats = play_games(1, 6, opt);
  EXPECT_EQ(stats.completed, 6);
  EXPECT_EQ(stats.soviet_wins + stats.german_wins + stats.draws, 6);
  EXPECT_GT(stats.moves, 0);
  EXPECT_GT(stats.standing_answers, 0);  // each checked: accepted, and blind to the other side's secrets
}

// The random players draw every order from the legal ones, so each chit they
// play shows that the list offers it: each is played in three games, but the
// bridge repair, which waits for the Jozefow bridge to be blown first.
TEST(Playout, Rule20_RandomPlayersPlayEveryEventChit) {
  PlayoutOptions opt;
  opt.view_check_every = 0;
  PlayoutStats stats = play_games(1, 3, opt);
  for (const auto& chit : engine().scenario().events) {
    if (chit.effect == data::BRIDGE_REPAIR) continue;
    EXPECT_GT(stats.chits_played[chit.id], 0) << chit.id << " (" << data::EventEffect_Name(chit.effect) << ")";
  }
}

// Games begun before revision 2 go on by the rules they began with.
TEST(Playout, RandomGamesOfRevision1) {
  PlayoutOptions opt;
  opt.revision = 1;
  opt.view_check_every = 10;
  EXPECT_EQ(play_games(200, 202, opt).completed, 3);
}

// And those begun before revision 3 by revision 2's.
TEST(Playout, RandomGamesOfRevision2) {
  PlayoutOptions opt;
  opt.revision = 2;
  opt.view_check_every = 10;
  EXPECT_EQ(play_games(300, 302, opt).completed, 3);
}

// And those begun before revision 4 by revision 3's.
TEST(Playout, RandomGamesOfRevision3) {
  PlayoutOptions opt;
  opt.revision = 3;
  opt.view_check_every = 10;
  EXPECT_EQ(play_games(400, 402, opt).completed, 3);
}

TEST(Playout, RandomGamesWithEveryOptionalRule) {
  PlayoutOptions opt;
  opt.options = kLimitedGermanActivation | kRedArmyFlexibility | kLimitedBonus | kRedArmyElasticDefense;
  EXPECT_EQ(play_games(100, 103, opt).completed, 4);
}

}  // namespace
}  // namespace counterattack
