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
  for (const auto kind : {Prng::Kind::Xoshiro256, Prng::Kind::ChaCha20}) {
    SCOPED_TRACE(kind == Prng::Kind::ChaCha20 ? "ChaCha20" : "xoshiro256**");
    Prng a(Prng::from_seed(5).state(), kind), b(Prng::from_seed(5).state(), kind);
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
}

// The generator of revision 2 as protocol/README.md specifies it, so that anyone
// can audit a game's dice: ChaCha20's published keystream for the all-zero key
// and nonce (RFC 7539 section 2.3.2's test vector, block 0) gives the next state
// (bytes 0-31) and the output (bytes 32-39, little-endian).
TEST(Dice, Revision2sGeneratorIsChaCha20AsSpecified) {
  Prng p(Prng::State{0, 0, 0, 0}, Prng::Kind::ChaCha20);
  EXPECT_EQ(p.next(), 0x8d4857517c5941daull);
  EXPECT_EQ(p.state()[0], 0x903df1a0ade0b876ull);
  EXPECT_EQ(p.state()[3], 0xc70d778bccef36a8ull);
  EXPECT_EQ(p.kind(), Prng::Kind::ChaCha20);
  EXPECT_EQ(dice_kind(revision_bits(2)), Prng::Kind::ChaCha20);
  EXPECT_EQ(dice_kind(revision_bits(1)), Prng::Kind::Xoshiro256);
}

}  // namespace
}  // namespace counterattack::testing
