// The game state is a value: same scenario + options + seed + orders, same hash.
#include <gtest/gtest.h>

#include "fixture.h"
#include "playout.h"

namespace counterattack::testing {
namespace {

TEST(State, RoundTripsThroughItsEncoding) {
  Table t(default_scenario());
  GameState back;
  ASSERT_TRUE(decode_state(t.sc(), encode_state(t.s), back));
  EXPECT_EQ(back, t.s);
  EXPECT_EQ(state_hash(back), state_hash(t.s));
}

TEST(State, HashChangesWithTheState) {
  Table t(default_scenario());
  const auto before = state_hash(t.s);
  t.s.units[0].mp_used = 1;
  EXPECT_NE(state_hash(t.s), before);
}

TEST(State, RejectsBytesThatAreNotAState) {
  Table t(default_scenario());
  const std::string bytes = encode_state(t.s);
  GameState out;
  EXPECT_FALSE(decode_state(t.sc(), bytes.substr(0, bytes.size() / 2), out));
  EXPECT_FALSE(decode_state(t.sc(), bytes + "x", out));
  EXPECT_FALSE(decode_state(t.sc(), "garbage", out));
  EXPECT_FALSE(decode_state(*test_scenario(), bytes, out));  // another scenario's state
}

// Same seed and the same orders give the same game on any machine.
TEST(State, SameSeedAndOrdersReplayToTheSameHash) {
  const Engine engine(default_scenario());
  auto play = [&](std::uint64_t seed) {
    Prng dice = Prng::from_seed(seed), choices = Prng::from_seed(seed + 1);
    GameState s = engine.new_game(0, dice);
    std::vector<std::uint64_t> hashes;
    for (int i = 0; i < 400 && s.step != Step::GameOver; ++i) {
      const Side who = engine.decision(s).side;
      EXPECT_TRUE(engine.apply(s, who, random_order(engine, s, choices), dice).accepted);
      hashes.push_back(state_hash(s));
    }
    return hashes;
  };
  EXPECT_EQ(play(11), play(11));
  EXPECT_NE(play(11), play(12));
}

TEST(Dice, AreUniformAndReproducible) {
  Prng a = Prng::from_seed(5), b = Prng::from_seed(5);
  int counts[7] = {};
  for (int i = 0; i < 60000; ++i) {
    const int d = a.d6();
    ASSERT_EQ(d, b.d6());
    ASSERT_GE(d, 1);
    ASSERT_LE(d, 6);
    counts[d]++;
  }
  for (int face = 1; face <= 6; ++face) {
    EXPECT_GT(counts[face], 9400);
    EXPECT_LT(counts[face], 10600);
  }
}

}  // namespace
}  // namespace counterattack::testing
