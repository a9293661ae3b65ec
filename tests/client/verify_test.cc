// `counterattack verify`: a game's log replayed by the rules against the seed
// its server committed to. A log played honestly is verified; one die changed,
// a seed other than the committed one, or another final position is not.
#include <gtest/gtest.h>

#include <random>

#include "engine.h"
#include "state.h"
#include "verify.h"

namespace counterattack::cli {
namespace {

// A game played by the engine as a server plays it, logged as GetLog gives it:
// random legal orders, attacks first when there are any, until some dice are rolled.
struct PlayedGame {
  wire::GameLog log;
  std::string commitment;
};

PlayedGame play(int revision, std::uint32_t random_seed) {
  const auto sc = default_scenario();
  const Engine engine(sc);
  std::string seed(32, '\0');
  std::mt19937 pick(random_seed);
  for (auto& c : seed) c = static_cast<char>(pick() & 0xFF);
  Prng::State words{};
  for (std::size_t w = 0; w < 4; ++w) {
    for (std::size_t b = 0; b < 8; ++b) words[w] |= static_cast<std::uint64_t>(static_cast<unsigned char>(seed[w * 8 + b])) << (8 * b);
  }
  const std::uint32_t bits = revision_bits(revision);
  Prng dice(words, dice_kind(bits));
  GameState state = engine.new_game(bits, dice, nullptr);

  PlayedGame g;
  static const char* digits = "0123456789abcdef";
  std::string seed_hex;
  for (unsigned char c : seed) seed_hex += std::string{digits[c >> 4], digits[c & 15]};
  g.log.set_seed_hex(seed_hex);
  g.log.set_rules_revision(revision);
  g.commitment = sha256_hex(seed);
  int rolled = 0;
  for (int n = 0; n < 3000 && (rolled < 6 || n < 40); ++n) {
    const Decision d = engine.decision(state);
    if (d.kind == game::Decision::GAME_OVER) break;
    const auto legal = engine.legal_orders(state);
    if (legal.empty()) break;
    std::vector<Order> fights;
    for (const auto& o : legal) {
      if (o.kind == Order::Kind::Attack || o.kind == Order::Kind::Barrage || o.kind == Order::Kind::Overrun) fights.push_back(o);
    }
    const auto& from = fights.empty() || pick() % 2 ? legal : fights;
    const Order order = from[pick() % from.size()];
    const Outcome out = engine.apply(state, d.side, order, dice);
    if (!out.accepted) continue;
    auto* entry = g.log.add_orders();
    entry->set_version(g.log.orders_size());
    entry->set_side(d.side == Side::Soviet ? game::SOVIET : game::GERMAN);
    *entry->mutable_order() = engine.to_proto(order);
    for (const auto& e : out.events) {
      *entry->add_events() = e;
      rolled += e.die() > 0 ? 1 : 0;
    }
  }
  *g.log.mutable_omniscient() = engine.view(state, Viewer::Omniscient);
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(state_hash(state)));
  g.log.set_state_hash(hash);
  return g;
}

TEST(Verify, AGamePlayedHonestlyIsVerifiedWithItsOrdersAndDice) {
  const auto g = play(2, 7);
  const auto audit = audit_game(default_scenario(), g.log, g.commitment);
  ASSERT_TRUE(audit.verified) << audit.mismatch;
  EXPECT_EQ(audit.orders, g.log.orders_size());
  EXPECT_GT(audit.dice, 0);
  const std::string said = describe_audit(audit);
  EXPECT_EQ(said.rfind("Verified: " + std::to_string(audit.orders) + " orders, " + std::to_string(audit.dice) + " dice", 0), 0u)
      << said;
  EXPECT_NE(said.find("the seed matches the commitment published at the start"), std::string::npos) << said;
  EXPECT_NE(said.find("revision 2 (ChaCha20 dice)"), std::string::npos) << said;
}

TEST(Verify, AGameOfTheFirstRevisionReplaysWithItsOwnDice) {
  const auto g = play(1, 11);
  const auto audit = audit_game(default_scenario(), g.log, g.commitment);
  ASSERT_TRUE(audit.verified) << audit.mismatch;
  EXPECT_NE(describe_audit(audit).find("revision 1 (xoshiro256** dice)"), std::string::npos) << describe_audit(audit);
}

TEST(Verify, ALogWithOneDieChangedIsNotVerifiedAndTheOrderIsNamed) {
  auto g = play(2, 7);
  int order = 0, die = 0;
  for (auto& entry : *g.log.mutable_orders()) {
    for (auto& e : *entry.mutable_events()) {
      if (e.die() > 0 && order == 0) {
        order = static_cast<int>(entry.version());
        die = e.die();
        e.set_die(die % 6 + 1);
      }
    }
  }
  ASSERT_GT(order, 0) << "no die was rolled";
  const auto audit = audit_game(default_scenario(), g.log, g.commitment);
  EXPECT_FALSE(audit.verified);
  EXPECT_TRUE(audit.seed_matches);
  EXPECT_EQ(audit.orders, order - 1) << "the orders before it agree";
  const std::string said = describe_audit(audit);
  EXPECT_EQ(said.rfind("Not verified: order " + std::to_string(order) + " (", 0), 0u) << said;
  EXPECT_NE(said.find("has a die of " + std::to_string(die % 6 + 1) + " in the log, where the seed rolls " + std::to_string(die)),
            std::string::npos)
      << said;
}

TEST(Verify, ASeedOtherThanTheCommittedOneIsNotVerified) {
  auto g = play(2, 7);
  std::string other = g.log.seed_hex();
  other[0] = other[0] == '0' ? '1' : '0';
  g.log.set_seed_hex(other);
  const auto audit = audit_game(default_scenario(), g.log, g.commitment);
  EXPECT_FALSE(audit.verified);
  EXPECT_FALSE(audit.seed_matches);
  EXPECT_NE(audit.mismatch.find("not the commitment published at the start"), std::string::npos) << audit.mismatch;
}

TEST(Verify, AFinalPositionOtherThanTheReplayedOneIsNotVerified) {
  auto g = play(2, 7);
  g.log.set_state_hash("0123456789abcdef");
  auto audit = audit_game(default_scenario(), g.log, g.commitment);
  EXPECT_FALSE(audit.verified);
  EXPECT_NE(audit.mismatch.find("hash"), std::string::npos) << audit.mismatch;

  g = play(2, 7);
  g.log.mutable_omniscient()->mutable_header()->set_turn(g.log.omniscient().header().turn() + 1);
  audit = audit_game(default_scenario(), g.log, g.commitment);
  EXPECT_FALSE(audit.verified);
  EXPECT_NE(audit.mismatch.find("full view"), std::string::npos) << audit.mismatch;
}

}  // namespace
}  // namespace counterattack::cli
